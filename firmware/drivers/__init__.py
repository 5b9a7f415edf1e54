"""Hardware access for the board: sensor scanning, debounce, zones, LEDs, buttons, dice, storage, watchdog."""
