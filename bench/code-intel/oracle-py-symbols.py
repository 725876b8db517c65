# Lists a Python package's module-level symbols (functions, classes, assigned names, also under `if`/`try`
# at module level), each file's import statement lines and every binding position (def/class names,
# assignment targets), for the code-intel bench's pyright oracle.
# Reads {"root", "files"} on stdin, prints {"symbols", "imports": {path: [line]}, "bindings", "aliases"}. Stdlib only.
import ast
import json
import os
import sys


def module_level(tree):
    stack = list(tree.body)
    while stack:
        node = stack.pop(0)
        if isinstance(node, (ast.If, ast.Try)):
            stack.extend(node.body + node.orelse + getattr(node, "finalbody", []))
            for handler in getattr(node, "handlers", []):
                stack.extend(handler.body)
        else:
            yield node


def scan(root, path):
    text = open(os.path.join(root, path), encoding="utf-8").read()
    lines = text.split("\n")
    tree = ast.parse(text)
    imports, bindings, aliases = [], [], []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports += list(range(node.lineno, node.end_lineno + 1))
            # `from m import X as Y`: where Y is bound, so its uses can be added to X's.
            for alias in node.names:
                if isinstance(node, ast.ImportFrom) and alias.asname and alias.asname != alias.name:
                    line = lines[alias.lineno - 1]
                    col = line.index(" as ", alias.col_offset) + 4
                    col = line.index(alias.asname, col)
                    aliases.append({"name": alias.name, "path": path, "line": alias.lineno, "column": col + 1})
        # Declarations are not uses: every def/class name and assignment target (overloads, a name
        # defined again in an else branch, module-level reassignments).
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            keyword = "class " if isinstance(node, ast.ClassDef) else "def "
            col = lines[node.lineno - 1].index(keyword, node.col_offset) + len(keyword)
            bindings.append(f"{path}:{node.lineno}:{col + 1}")
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bindings.append(f"{path}:{node.lineno}:{node.col_offset + 1}")
    symbols, seen = [], set()
    for node in module_level(tree):
        names = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            keyword = "class " if isinstance(node, ast.ClassDef) else "def "
            col = lines[node.lineno - 1].index(keyword, node.col_offset) + len(keyword)
            names.append((node.name, node.lineno, col))
        elif isinstance(node, ast.Assign):
            names += [(t.id, t.lineno, t.col_offset) for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append((node.target.id, node.target.lineno, node.target.col_offset))
        for name, line, col in names:
            if name not in seen and not name.startswith("__"):
                seen.add(name)
                symbols.append({"name": name, "path": path, "line": line, "column": col + 1})
    return symbols, imports, bindings, aliases


request = json.load(sys.stdin)
out = {"symbols": [], "imports": {}, "bindings": [], "aliases": []}
for path in sorted(request["files"]):
    symbols, imports, bindings, aliases = scan(request["root"], path)
    out["aliases"] += aliases
    out["symbols"] += symbols
    out["imports"][path] = imports
    out["bindings"] += bindings
json.dump(out, sys.stdout)
