# SPDX-License-Identifier: GPL-2.0
#
# eventpath.py - gdb script of bin/eventpath.sh: on QEMU's gdb stub, stop
# at a kmemtrace probe REPS times and single-step each call to its return,
# writing one line per call: "LABEL N PC PC ...".  Set by the caller
# (gdb -ex "python ..."): port, probe (a breakpoint location, with a
# condition if need be: "pair_pages if $rdi == 3"), out, reps, and
# optionally label (default: probe).

import gdb

label = globals().get("label", probe)
# At the function's first instruction, where the return address is on
# the top of the stack: "hbreak FUNC" would stop after a frame pointer's
# push, as gdb skips what it takes for the prologue.
if not probe.startswith("*"):
    probe = "*" + probe
gdb.execute("set pagination off")
gdb.execute("target remote 127.0.0.1:%d" % port)
gdb.execute("hbreak %s" % probe, to_string=True)
with open(out, "a") as f:
    for rep in range(reps):
        gdb.execute("continue", to_string=True)
        sp = int(gdb.parse_and_eval("$rsp"))
        ret = int(gdb.parse_and_eval("*(unsigned long *)$rsp"))
        pcs = []
        gdb.execute("delete", to_string=True)
        while len(pcs) < 100000:
            pc = int(gdb.parse_and_eval("$pc"))
            if pc == ret and int(gdb.parse_and_eval("$rsp")) > sp:
                break
            pcs.append(pc)
            gdb.execute("stepi", to_string=True)
        f.write("%s %d %s\n" % (label, len(pcs), " ".join("%x" % p for p in pcs)))
        f.flush()
        gdb.execute("hbreak %s" % probe, to_string=True)
gdb.execute("delete", to_string=True)
gdb.execute("detach", to_string=True)
