# What the Python client programs share: the records they write and how they report. Each program is run as
#   python <program>.py <bootstrap> <scenario> [args...]
# and prints one JSON object on stdout (the scenario's result, or {"error": ...}); the scenarios and their
# arguments are those test/helpers/client-matrix.ts drives, the same for every client.
import json
import sys
import traceback

RECORDS = 100
TXN_RECORDS = 10
TIMEOUT = 30
# How long a read_committed reader waits past the committed records: aborted ones would show up meanwhile.
GRACE = 2


def value(i):
    # As test/helpers/disk-batches.ts's compressibleValue: every codec pays, so each batch is stored compressed.
    return ('record %d ' % i + 'the quick brown fox jumps over the lazy dog, ' * 12).encode()


def key(i):
    return b'k%d' % i


def matching(records):
    """How many (offset, key, value) triples are the ones produced."""
    return sum(1 for offset, k, v in records if k == key(offset) and v == value(offset))


def main(scenarios):
    bootstrap, scenario, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    try:
        result = scenarios[scenario](bootstrap, *args)
    except Exception as e:  # the test prints the error with the client's stderr
        traceback.print_exc()
        result = {'error': '%s: %s' % (type(e).__name__, e)}
    print(json.dumps(result))
    sys.stdout.flush()
