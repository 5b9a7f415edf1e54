"""The host's MQTT clients of the hall (paho-mqtt): logged in with the room's credentials, reconnecting on their own."""

import paho.mqtt.client as paho

RECONNECT_MIN_S = 0.2
RECONNECT_MAX_S = 5
QUEUE = 20000            # messages kept while the broker is away (past that they are dropped:
                         # the station asks again for any line it lacks)


def connect(room, user, client_id=None, on_connect=None, on_message=None, on_disconnect=None,
            will=None, host=None, port=None, start=True, clean=True, on_subscribed=None,
            on_error=None):
    """A paho client logged in as ``user`` (a board id, ``station``, ``spectator``) with the
    room's password for it, connecting in the background and again after every loss;
    ``on_connect(client)`` runs after each (re)connect (subscribe there), ``on_message(client,
    topic, payload)`` for each message, ``will`` = (topic, payload) the broker publishes,
    retained, when the connection dies; ``on_subscribed(client, mid)`` when the broker
    acknowledges the subscription sent with message id ``mid``; ``clean=False``: a persistent session (the broker keeps
    the client's subscriptions and queues its QoS 1 messages while it is away). An exception out
    of ``on_message`` goes to ``on_error(topic, exc)`` (default: a line on stderr), and the
    thread goes on with the next message."""
    c = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=client_id or user,
                    clean_session=clean)
    c.username_pw_set(user, room.password(user))
    c.reconnect_delay_set(RECONNECT_MIN_S, RECONNECT_MAX_S)
    c.max_queued_messages_set(QUEUE)
    c.max_inflight_messages_set(100)
    if will is not None:
        c.will_set(will[0], will[1], qos=1, retain=True)

    def _connected(client, userdata, flags, reason, properties):
        if not reason.is_failure and on_connect is not None:
            on_connect(client)

    def _message(client, userdata, msg):
        if on_message is not None:
            try:
                on_message(client, msg.topic, msg.payload)
            except Exception as exc:     # one message never ends the client's thread
                (on_error or _print_error)(msg.topic, exc)

    def _subscribed(client, userdata, mid, reasons, properties):
        if on_subscribed is not None and not any(r.is_failure for r in reasons):
            on_subscribed(client, mid)

    def _disconnected(client, userdata, flags, reason, properties):
        if on_disconnect is not None:
            on_disconnect(client)

    c.on_connect = _connected
    c.on_message = _message
    c.on_disconnect = _disconnected
    c.on_subscribe = _subscribed
    c.connect_async(host or room.host, port or room.port, keepalive=20)
    if start:
        c.loop_start()
    return c


def _print_error(topic, exc):
    import sys
    print("mqtt: a message on %s broke its handler: %s: %s" % (topic, type(exc).__name__,
                                                               str(exc)[:200]), file=sys.stderr)


def close(c):
    """Disconnect cleanly (no last will) and stop the client's thread."""
    try:
        c.disconnect()
    finally:
        c.loop_stop()
