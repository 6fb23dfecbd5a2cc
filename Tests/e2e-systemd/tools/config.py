#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""config.py: reads and edits beacon-tx config files (JSON with // comments), independently of
beacon-tx, for the systemd bed's expectations.

    config.py ids FILE                 one line per beacon: UUIDHEX-MAJOR-MINOR (lowercase hex)
    config.py set FILE PATH=VALUE...   prints FILE with each PATH (dotted, list indexes as
                                       numbers: beacons.0.minor) set to VALUE (parsed as JSON)
"""
import json
import sys


def strip_comments(text):
    out, i, in_str = [], 0, False
    while i < len(text):
        c = text[i]
        if in_str:
            out.append(c)
            if c == "\\":
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
            out.append(c)
        elif text.startswith("//", i):
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def load(path):
    with open(path) as f:
        return json.loads(strip_comments(f.read()))


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    conf = load(path)
    if cmd == "ids":
        for b in conf["beacons"]:
            print("%s-%d-%d" % (b["uuid"].replace("-", "").lower(), b["major"], b["minor"]))
    elif cmd == "set":
        for arg in sys.argv[3:]:
            key, value = arg.split("=", 1)
            parts = key.split(".")
            node = conf
            for p in parts[:-1]:
                node = node[int(p)] if isinstance(node, list) else node[p]
            last = parts[-1]
            if isinstance(node, list):
                node[int(last)] = json.loads(value)
            else:
                node[last] = json.loads(value)
        print(json.dumps(conf, indent=2))
    else:
        sys.exit("usage: config.py ids FILE | set FILE PATH=VALUE...")


if __name__ == "__main__":
    main()
