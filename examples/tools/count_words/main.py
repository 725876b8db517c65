"""count_words: a toolgate tool folder in Python.

Input JSON arrives on stdin, the result JSON goes to stdout. The working directory is the session's
workspace; a failure is {"error": {"message", "code"?, "suggestion"?}} on stdout with a non-zero exit.
"""
import json
import os
import sys


def fail(code, message, suggestion=None):
    error = {"code": code, "message": message}
    if suggestion:
        error["suggestion"] = suggestion
    json.dump({"error": error}, sys.stdout)
    sys.exit(1)


def main():
    args = json.load(sys.stdin)
    path = args["path"]
    if not os.path.isfile(path):
        fail("NOT_FOUND", f"No such file: {path}", "Check the path with list_directory or glob.")
    with open(path, "rb") as handle:
        data = handle.read()
    text = data.decode("utf-8", errors="replace")
    json.dump(
        {"path": path, "lines": text.count("\n"), "words": len(text.split()), "bytes": len(data)},
        sys.stdout,
    )


main()
