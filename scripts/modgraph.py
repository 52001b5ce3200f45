#!/usr/bin/env python3
"""Module dependency graph of a crate's src/ from `crate::` and `super::` paths in code (comments and doc
comments ignored); prints "module -> modules it uses" and any cycle. Usage: modgraph.py CRATE_SRC_DIR
A child's `use super::{a, b::{c, d}}` (nested, over several lines or not) counts as a use of each named item's module, so a parent that keeps types
its children read while it calls them is a circle: shared types belong in a sibling module.
A visibility (`pub(super)`, `pub(crate)`, `pub(in crate::a)`) names who may see an item, not code it uses:
not counted."""
import os, re, sys
root = sys.argv[1]
mods = {}
for dp, _, fs in os.walk(root):
    for f in fs:
        if not f.endswith('.rs'): continue
        p = os.path.relpath(os.path.join(dp, f), root)[:-3].split(os.sep)
        if p[-1] in ('mod', 'lib', 'main'): p = p[:-1]
        mods[tuple(p)] = os.path.join(dp, f)
def resolve(path):
    # the longest prefix that is a module
    for k in range(len(path), -1, -1):
        if tuple(path[:k]) in mods: return tuple(path[:k])
    return ()
def matching(text):
    """Index of the brace that closes the one `text` starts with."""
    depth = 0
    for i, ch in enumerate(text):
        depth += {'{': 1, '}': -1}.get(ch, 0)
        if depth == 0: return i
    return len(text) - 1
def expand(tree):
    """The leaf paths of a use tree `{a, b::{c, d as e}, self}` as lists of names (`self` and globs name the
    tree's own module: no leaf)."""
    inner, items, depth, cur = tree.strip()[1:-1], [], 0, ''
    for ch in inner:
        if ch == ',' and depth == 0: items.append(cur); cur = ''; continue
        depth += {'{': 1, '}': -1}.get(ch, 0); cur += ch
    items.append(cur)
    leaves = []
    for item in (i.strip() for i in items):
        if not item or item in ('self', '*'): continue
        if '{' in item:
            head = item[:item.index('{')].rstrip(':').split('::')
            leaves += [head + leaf for leaf in expand(item[item.index('{'):])] or [head]
        else:
            leaves.append(item.split(' as ')[0].strip().split('::'))
    return leaves
def statements(path):
    """The file's code lines, comments cut, with a `use` tree that spans lines joined into one."""
    pending = ''
    for line in open(path):
        code = line.split('//')[0]
        if pending or (re.match(r'\s*(?:pub(?:\([\w:]+\))?\s+)?use\b', code) and ';' not in code):
            pending += ' ' + code.strip()
            if ';' not in code: continue
            code, pending = pending, ''
        yield code
graph = {}
for m, f in mods.items():
    deps = set()
    # Inline modules (`mod tests { ... }`): `super::` inside one names the file's module, not its parent.
    inline = []  # (name, brace depth inside the block)
    depth = 0
    for code in statements(f):
        opened = re.match(r'\s*(?:pub(?:\([\w:]+\))?\s+)?mod\s+(\w+)\s*\{', code)
        cur = m + tuple(n for n, _ in inline)
        uses = re.sub(r'\bpub\s*\(\s*(?:crate|super|self|in\s+[\w:]+)\s*\)', 'pub', code)
        for hit in re.finditer(r'\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)*)(::\{)?', uses):
            base = [] if hit.group(1) == 'crate' else list(cur[:-1])
            parts = hit.group(2).split('::')[1:]
            while parts and parts[0] == 'super':
                base = base[:-1]; parts = parts[1:]
            targets = [base + parts] if parts or not hit.group(3) else []
            if hit.group(3):
                tree = uses[hit.end() - 1:]
                targets += [base + parts + leaf for leaf in expand(tree[:matching(tree) + 1])]
            for t in targets:
                r = resolve(t)
                if r != m and r != () and not (len(r) < len(m) and m[:len(r)] == r and r == m[:-1] and False):
                    deps.add(r)
        # paths relative to the module itself: `use child::...`, `self::child`, `child::item` in code
        for hit in re.finditer(r'(?<![:\w])(?:self::)?([a-z_][a-z0-9_]*)::', code):
            if m + (hit.group(1),) in mods and hit.group(1) not in ('crate', 'super', 'std', 'self'):
                deps.add(m + (hit.group(1),))
        if opened:
            inline.append((opened.group(1), depth + 1))
        depth += code.count('{') - code.count('}')
        while inline and depth < inline[-1][1]:
            inline.pop()
    graph[m] = deps
name = lambda m: '::'.join(m) or 'crate'
# a parent's dependency on its own child through `mod`/`pub use` only is not a use of the child's code
for m in sorted(graph):
    print(f"{name(m)} -> {', '.join(sorted(name(d) for d in graph[m])) or '(none)'}")
# cycles (Tarjan)
idx = {}; low = {}; st = []; on = set(); sccs = []; c = [0]
def sc(v):
    idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
    for w in graph.get(v, ()):
        if w not in idx: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        comp = []
        while True:
            w = st.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: sccs.append(comp)
sys.setrecursionlimit(10000)
for v in graph:
    if v not in idx: sc(v)
for comp in sccs: print('CYCLE:', ' '.join(sorted(name(x) for x in comp)))
sys.exit(1 if sccs else 0)
