"""The tournament hall: boards, a broker, the director's station and the spectators' page, over MQTT.

``room`` the hall's folder (the director's secret, the boards, the credentials derived from it),
``broker`` Mosquitto started with a generated configuration, ``bridge`` a USB board's lines
carried to the hall, ``station`` the director's station (every line verified, games stored),
``store`` its database, ``views`` what the pages show, ``web`` the director's and spectators'
pages, ``simboard`` a simulated board on a pseudo-terminal, ``bench`` the load generator of
the benchmark. The topic layout is ``firmware.board.hall_link``'s (docs/hall.md).
"""
