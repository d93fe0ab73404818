# Runs a command in a pseudo-terminal of a given size and relays bytes: our stdin to the terminal's
# input, its output to our stdout. Exits with the command's status. Usage: pty-host.py COLS ROWS CMD...
import fcntl, os, pty, select, struct, sys, termios

cols, rows, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
pid, master = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    os.execvp(argv[0], argv)

# The command's pid on stderr, for tools that measure it (scripts/bench-ui.mjs).
sys.stderr.write("pid %d\n" % pid)
sys.stderr.flush()
inputs = [master, 0]
while True:
    ready, _, _ = select.select(inputs, [], [])
    if 0 in ready:
        data = os.read(0, 4096)
        if data:
            os.write(master, data)
        else:
            inputs.remove(0)
    if master in ready:
        try:
            data = os.read(master, 65536)
        except OSError:
            data = b""
        if not data:
            break
        os.write(1, data)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
