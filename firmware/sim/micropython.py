"""Stand-in for MicroPython's `micropython` module on CPython: const is the identity, emitters are no-ops."""


def const(x):
    return x


def native(f):
    return f


def viper(f):
    return f


def schedule(func, arg):
    func(arg)
    return True


def alloc_emergency_exception_buf(size):
    pass


def heap_lock():
    return 0


def heap_unlock():
    return 0


def mem_info(verbose=None):
    print("mem: (CPython stand-in)")


def opt_level(level=None):
    return 0


interrupt = 3       # the REPL's interrupt character (Ctrl-C; -1: none): the boot-window tests read it


def kbd_intr(c):
    global interrupt
    interrupt = c
