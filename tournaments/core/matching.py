"""Maximum-weight matching in general graphs: Edmonds' blossom algorithm with weights.

The primal-dual method of Edmonds (1965) as laid out by Galil ("Efficient
algorithms for finding maximum matching in graphs", 1986), written here in the
well-known array form (vertices, blossoms and edge endpoints are integers):
O(n³) in the worst case, integer arithmetic throughout.

Two entry points:

``max_weight_matching(n, edges, max_cardinality=False)``
    the classic problem: a matching of maximum total weight (or, with
    ``max_cardinality``, of maximum weight among the matchings of maximum
    size).  Returns ``mate``: ``mate[v]`` is v's partner or -1.

``max_weight_perfect_matching(n, edges)``
    a perfect matching of maximum weight, or None when the graph has none.
    This one starts from a *greedy dual solution* (every vertex's dual is its
    heaviest incident edge, lowered until one of its edges is tight, tight
    edges to free vertices matched at once), so that a graph whose heaviest
    edges already form a near-perfect matching (a Swiss round: everyone's
    preferred partner is usually available) needs only a few augmentations.
    For a perfect matching the vertex duals are free in sign, so any feasible
    dual solution with tight matched edges is a valid start; all duals start
    even (weights are doubled inside), which keeps every step integral.
    The result carries the optimal duals, so a caller that solved a sparse
    subgraph can *price* the edges it left out: the matching is optimal for
    the whole graph when ``slack(i, j, w) >= 0`` for every left-out edge.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

Edge = tuple[int, int, int]


class PerfectMatching:
    """A maximum-weight perfect matching with its optimal dual solution.

    ``dual`` is in internal units: an edge (i, j) of weight w is dual-feasible
    when ``dual[i] + dual[j] - 4*w + 2*sum(dual of blossoms holding both) >= 0``;
    ``slack`` computes exactly that.  ``dual[i] + dual[j] - 4*w`` alone is a
    lower bound of it (blossom duals are never negative).  ``top[v]`` is the
    outermost blossom holding v (v itself when none) and ``top_bonus[v]`` twice
    that blossom's dual: for two vertices with the same ``top`` the slack is at
    least the lower bound plus ``top_bonus``.
    """

    __slots__ = ("_chains", "_sums", "dual", "mate", "top", "top_bonus")

    def __init__(
        self, mate: list[int], dual: list[int], parent: list[int], zdual: list[int]
    ) -> None:
        self.mate = mate
        self.dual = dual
        chains: list[list[int]] = []
        sums: list[list[int]] = []
        top: list[int] = []
        bonus: list[int] = []
        for v in range(len(mate)):
            chain = []
            b = parent[v]
            while b != -1:
                chain.append(b)
                b = parent[b]
            chain.reverse()
            acc = 0
            cum = []
            for b in chain:
                acc += 2 * zdual[b]
                cum.append(acc)
            chains.append(chain)
            sums.append(cum)
            top.append(chain[0] if chain else v)
            bonus.append(cum[0] if cum else 0)
        self._chains = chains
        self._sums = sums
        self.top = top
        self.top_bonus = bonus

    def slack(self, i: int, j: int, w: int) -> int:
        s = self.dual[i] + self.dual[j] - 4 * w
        ci, cj = self._chains[i], self._chains[j]
        k = 0
        for bi, bj in zip(ci, cj, strict=False):
            if bi != bj:
                break
            k += 1
        return s + self._sums[i][k - 1] if k else s


def max_weight_matching(
    n: int, edges: Sequence[Edge], *, max_cardinality: bool = False
) -> list[int]:
    """Partner of each vertex (or -1) in a maximum-weight matching of the graph."""
    mate, _, _ = _solve(n, edges, max_cardinality=max_cardinality, warm=False)
    return mate


def max_weight_perfect_matching(
    n: int, edges: Sequence[Edge], *, first: Sequence[int] = ()
) -> PerfectMatching | None:
    """A maximum-weight perfect matching, or None when the graph has no perfect matching.

    ``first``: vertices the greedy start matches before the others (the most
    constrained ones, e.g. a bye vertex), a hint that only affects speed.
    """
    if n % 2:
        return None
    if n == 0:
        return PerfectMatching([], [], [], [])
    mate, dual, parent = _solve(n, edges, max_cardinality=True, warm=True, first=first)
    if any(m < 0 for m in mate):
        return None
    return PerfectMatching(mate, dual[:n], parent, dual)


def _solve(
    nvertex: int,
    edges: Sequence[Edge],
    *,
    max_cardinality: bool,
    warm: bool,
    first: Sequence[int] = (),
) -> tuple[list[int], list[int], list[int]]:
    nedge = len(edges)
    for i, j, _ in edges:
        if i == j or not (0 <= i < nvertex and 0 <= j < nvertex):
            raise ValueError(f"bad edge ({i}, {j}) for {nvertex} vertices")
    # Weights doubled: every dual stays an integer (see the module docstring).
    weight = [2 * w for _, _, w in edges]
    endpoint = [0] * (2 * nedge)
    neighbend: list[list[int]] = [[] for _ in range(nvertex)]
    for k, (i, j, _) in enumerate(edges):
        endpoint[2 * k] = i
        endpoint[2 * k + 1] = j
        neighbend[i].append(2 * k + 1)
        neighbend[j].append(2 * k)

    # mate[v]: the remote endpoint of v's matched edge, or -1.
    mate = [-1] * nvertex
    # label of a top-level blossom (or vertex): 0 free, 1 S, 2 T (5: scan mark).
    label = [0] * (2 * nvertex)
    labelend = [-1] * (2 * nvertex)
    inblossom = list(range(nvertex))
    blossomparent = [-1] * (2 * nvertex)
    blossomchilds: list[list[int]] = [[] for _ in range(2 * nvertex)]
    blossombase = list(range(nvertex)) + [-1] * nvertex
    blossomendps: list[list[int]] = [[] for _ in range(2 * nvertex)]
    bestedge = [-1] * (2 * nvertex)
    blossombestedges: list[list[int] | None] = [None] * (2 * nvertex)
    unusedblossoms = list(range(nvertex, 2 * nvertex))
    maxweight = max([0, *weight])
    dualvar = [maxweight] * nvertex + [0] * nvertex
    allowedge = [False] * nedge
    queue: list[int] = []

    if warm:
        for v in range(nvertex):
            nb = neighbend[v]
            dualvar[v] = max(weight[p >> 1] for p in nb) if nb else 0
        for v in [*first, *range(nvertex)]:
            if mate[v] != -1 or not neighbend[v]:
                continue
            dv = dualvar[v]
            least = min(dv + dualvar[endpoint[p]] - 2 * weight[p >> 1] for p in neighbend[v])
            dv -= least
            dualvar[v] = dv
            for p in neighbend[v]:
                w = endpoint[p]
                if mate[w] == -1 and dv + dualvar[w] == 2 * weight[p >> 1]:
                    mate[v] = p
                    mate[w] = p ^ 1
                    break

    def slack(k: int) -> int:
        return dualvar[endpoint[2 * k]] + dualvar[endpoint[2 * k + 1]] - 2 * weight[k]

    def blossom_leaves(b: int) -> Iterator[int]:
        if b < nvertex:
            yield b
            return
        stack = [b]
        while stack:
            t = stack.pop()
            if t < nvertex:
                yield t
            else:
                stack.extend(reversed(blossomchilds[t]))

    def assign_label(w: int, t: int, p: int) -> None:
        while True:
            b = inblossom[w]
            label[w] = label[b] = t
            labelend[w] = labelend[b] = p
            bestedge[w] = bestedge[b] = -1
            if t == 1:
                queue.extend(blossom_leaves(b))
                return
            # t == 2: the base's mate becomes an S-vertex.
            base = blossombase[b]
            w, t, p = endpoint[mate[base]], 1, mate[base] ^ 1

    def scan_blossom(v: int, w: int) -> int:
        """Trace back from v and w; the base of a new blossom, or -1 for an augmenting path."""
        path = []
        base = -1
        while v != -1 or w != -1:
            b = inblossom[v]
            if label[b] & 4:
                base = blossombase[b]
                break
            path.append(b)
            label[b] = 5
            if labelend[b] == -1:
                v = -1
            else:
                v = endpoint[labelend[b]]
                b = inblossom[v]
                v = endpoint[labelend[b]]
            if w != -1:
                v, w = w, v
        for b in path:
            label[b] = 1
        return base

    def add_blossom(base: int, k: int) -> None:
        v, w = endpoint[2 * k], endpoint[2 * k + 1]
        bb = inblossom[base]
        bv = inblossom[v]
        bw = inblossom[w]
        b = unusedblossoms.pop()
        blossombase[b] = base
        blossomparent[b] = -1
        blossomparent[bb] = b
        path: list[int] = []
        endps: list[int] = []
        blossomchilds[b] = path
        blossomendps[b] = endps
        while bv != bb:
            blossomparent[bv] = b
            path.append(bv)
            endps.append(labelend[bv])
            v = endpoint[labelend[bv]]
            bv = inblossom[v]
        path.append(bb)
        path.reverse()
        endps.reverse()
        endps.append(2 * k)
        while bw != bb:
            blossomparent[bw] = b
            path.append(bw)
            endps.append(labelend[bw] ^ 1)
            w = endpoint[labelend[bw]]
            bw = inblossom[w]
        label[b] = 1
        labelend[b] = labelend[bb]
        dualvar[b] = 0
        for leaf in blossom_leaves(b):
            if label[inblossom[leaf]] == 2:
                queue.append(leaf)
            inblossom[leaf] = b
        bestedgeto: dict[int, int] = {}
        for sub in path:
            stored = blossombestedges[sub]
            if stored is None:
                nblists = [[p >> 1 for p in neighbend[leaf]] for leaf in blossom_leaves(sub)]
            else:
                nblists = [stored]
            for nblist in nblists:
                for kk in nblist:
                    i, j = endpoint[2 * kk], endpoint[2 * kk + 1]
                    if inblossom[j] == b:
                        i, j = j, i
                    bj = inblossom[j]
                    if bj != b and label[bj] == 1:
                        old = bestedgeto.get(bj, -1)
                        if old == -1 or slack(kk) < slack(old):
                            bestedgeto[bj] = kk
            blossombestedges[sub] = None
            bestedge[sub] = -1
        best_list = list(bestedgeto.values())
        blossombestedges[b] = best_list
        best = -1
        for kk in best_list:
            if best == -1 or slack(kk) < slack(best):
                best = kk
        bestedge[b] = best

    def expand_blossom(b: int, endstage: bool) -> None:
        for s in blossomchilds[b]:
            blossomparent[s] = -1
            if s < nvertex:
                inblossom[s] = s
            elif endstage and dualvar[s] == 0:
                expand_blossom(s, endstage)
            else:
                for leaf in blossom_leaves(s):
                    inblossom[leaf] = s
        if not endstage and label[b] == 2:
            childs = blossomchilds[b]
            endps = blossomendps[b]
            entrychild = inblossom[endpoint[labelend[b] ^ 1]]
            j = childs.index(entrychild)
            if j & 1:
                j -= len(childs)
                jstep = 1
                endptrick = 0
            else:
                jstep = -1
                endptrick = 1
            p = labelend[b]
            while j != 0:
                label[endpoint[p ^ 1]] = 0
                label[endpoint[endps[j - endptrick] ^ endptrick ^ 1]] = 0
                assign_label(endpoint[p ^ 1], 2, p)
                allowedge[endps[j - endptrick] >> 1] = True
                j += jstep
                p = endps[j - endptrick] ^ endptrick
                allowedge[p >> 1] = True
                j += jstep
            bv = childs[j]
            label[endpoint[p ^ 1]] = label[bv] = 2
            labelend[endpoint[p ^ 1]] = labelend[bv] = p
            bestedge[bv] = -1
            j += jstep
            while childs[j] != entrychild:
                bv = childs[j]
                if label[bv] == 1:
                    j += jstep
                    continue
                found = -1
                for leaf in blossom_leaves(bv):
                    if label[leaf] != 0:
                        found = leaf
                        break
                if found != -1:
                    label[found] = 0
                    label[endpoint[mate[blossombase[bv]]]] = 0
                    assign_label(found, 2, labelend[found])
                j += jstep
        label[b] = labelend[b] = -1
        blossomchilds[b] = []
        blossomendps[b] = []
        blossombase[b] = -1
        blossombestedges[b] = None
        bestedge[b] = -1
        unusedblossoms.append(b)

    def augment_blossom(b: int, v: int) -> None:
        t = v
        while blossomparent[t] != b:
            t = blossomparent[t]
        if t >= nvertex:
            augment_blossom(t, v)
        childs = blossomchilds[b]
        endps = blossomendps[b]
        i = j = childs.index(t)
        if i & 1:
            j -= len(childs)
            jstep = 1
            endptrick = 0
        else:
            jstep = -1
            endptrick = 1
        while j != 0:
            j += jstep
            t = childs[j]
            p = endps[j - endptrick] ^ endptrick
            if t >= nvertex:
                augment_blossom(t, endpoint[p])
            j += jstep
            t = childs[j]
            if t >= nvertex:
                augment_blossom(t, endpoint[p ^ 1])
            mate[endpoint[p]] = p ^ 1
            mate[endpoint[p ^ 1]] = p
        blossomchilds[b] = childs[i:] + childs[:i]
        blossomendps[b] = endps[i:] + endps[:i]
        blossombase[b] = blossombase[blossomchilds[b][0]]

    def augment_matching(k: int) -> None:
        v, w = endpoint[2 * k], endpoint[2 * k + 1]
        for s, p in ((v, 2 * k + 1), (w, 2 * k)):
            while True:
                bs = inblossom[s]
                if bs >= nvertex:
                    augment_blossom(bs, s)
                mate[s] = p
                if labelend[bs] == -1:
                    break
                t = endpoint[labelend[bs]]
                bt = inblossom[t]
                s = endpoint[labelend[bt]]
                j = endpoint[labelend[bt] ^ 1]
                if bt >= nvertex:
                    augment_blossom(bt, j)
                mate[j] = labelend[bt]
                p = labelend[bt] ^ 1

    for _stage in range(nvertex):
        label[:] = [0] * (2 * nvertex)
        bestedge[:] = [-1] * (2 * nvertex)
        blossombestedges[nvertex:] = [None] * nvertex
        allowedge[:] = [False] * nedge
        queue[:] = []
        for v in range(nvertex):
            if mate[v] == -1 and label[inblossom[v]] == 0:
                assign_label(v, 1, -1)
        augmented = False
        while True:
            while queue and not augmented:
                v = queue.pop()
                bv_top = inblossom[v]
                dv = dualvar[v]
                for p in neighbend[v]:
                    k = p >> 1
                    w = endpoint[p]
                    bw_top = inblossom[w]
                    if bv_top == bw_top:
                        continue
                    kslack = 0
                    if not allowedge[k]:
                        kslack = dv + dualvar[w] - 2 * weight[k]
                        if kslack <= 0:
                            allowedge[k] = True
                    if allowedge[k]:
                        lw = label[bw_top]
                        if lw == 0:
                            assign_label(w, 2, p ^ 1)
                        elif lw == 1:
                            base = scan_blossom(v, w)
                            if base >= 0:
                                add_blossom(base, k)
                                bv_top = inblossom[v]
                            else:
                                augment_matching(k)
                                augmented = True
                                break
                        elif label[w] == 0:
                            label[w] = 2
                            labelend[w] = p ^ 1
                    elif label[bw_top] == 1:
                        if bestedge[bv_top] == -1 or kslack < slack(bestedge[bv_top]):
                            bestedge[bv_top] = k
                    elif label[w] == 0 and (bestedge[w] == -1 or kslack < slack(bestedge[w])):
                        bestedge[w] = k
            if augmented:
                break

            deltatype = -1
            delta = 0
            deltaedge = -1
            deltablossom = -1
            if not max_cardinality:
                deltatype = 1
                delta = min(dualvar[:nvertex])
            for v in range(nvertex):
                if label[inblossom[v]] == 0 and bestedge[v] != -1:
                    d = slack(bestedge[v])
                    if deltatype == -1 or d < delta:
                        delta = d
                        deltatype = 2
                        deltaedge = bestedge[v]
            for b in range(2 * nvertex):
                if blossomparent[b] == -1 and label[b] == 1 and bestedge[b] != -1:
                    kslack = slack(bestedge[b])
                    if kslack % 2:
                        raise AssertionError("odd slack between S-vertices")
                    d = kslack // 2
                    if deltatype == -1 or d < delta:
                        delta = d
                        deltatype = 3
                        deltaedge = bestedge[b]
            for b in range(nvertex, 2 * nvertex):
                if (
                    blossombase[b] >= 0
                    and blossomparent[b] == -1
                    and label[b] == 2
                    and (deltatype == -1 or dualvar[b] < delta)
                ):
                    delta = dualvar[b]
                    deltatype = 4
                    deltablossom = b
            if deltatype == -1:
                # Maximum cardinality reached: nothing can grow any more.
                deltatype = 1
                delta = max(0, min(dualvar[:nvertex]))

            for v in range(nvertex):
                lv = label[inblossom[v]]
                if lv == 1:
                    dualvar[v] -= delta
                elif lv == 2:
                    dualvar[v] += delta
            for b in range(nvertex, 2 * nvertex):
                if blossombase[b] >= 0 and blossomparent[b] == -1:
                    if label[b] == 1:
                        dualvar[b] += delta
                    elif label[b] == 2:
                        dualvar[b] -= delta

            if deltatype == 1:
                break
            if deltatype == 2:
                allowedge[deltaedge] = True
                i, j = endpoint[2 * deltaedge], endpoint[2 * deltaedge + 1]
                if label[inblossom[i]] == 0:
                    i, j = j, i
                queue.append(i)
            elif deltatype == 3:
                allowedge[deltaedge] = True
                queue.append(endpoint[2 * deltaedge])
            else:
                expand_blossom(deltablossom, False)
        if not augmented:
            break
        for b in range(nvertex, 2 * nvertex):
            if blossomparent[b] == -1 and blossombase[b] >= 0 and label[b] == 1 and dualvar[b] == 0:
                expand_blossom(b, True)

    result = [endpoint[m] if m >= 0 else -1 for m in mate]
    return result, dualvar, blossomparent
