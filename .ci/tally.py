#!/usr/bin/env python3
"""tally.py TESTLOG.json... — counts test cases in Meson test logs.

Unit tests speak TAP, so each case counts on its own; a test that crashed
before reporting counts as one failure. Prints "PASSED FAILED SKIPPED"."""
import json
import re
import sys

passed = failed = skipped = 0
for path in sys.argv[1:]:
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError:
        failed += 1  # the run never produced a log: the build failed
        continue
    for line in lines:
        t = json.loads(line)
        out = t.get("stdout") or ""
        skip = len(re.findall(r"^ok .*# SKIP", out, re.M | re.I))
        ok = len(re.findall(r"^ok ", out, re.M)) - skip
        bad = len(re.findall(r"^not ok ", out, re.M))
        skipped += skip
        if t["result"] in ("OK", "EXPECTEDFAIL"):
            passed += ok if ok + bad + skip else 1
            failed += bad
        elif t["result"] == "SKIP":
            skipped += 1
        else:
            passed += ok
            failed += max(bad, 1)
print(passed, failed, skipped)
