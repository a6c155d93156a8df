"""The Merkle tree hash of RFC 9162 (section 2.1), with inclusion and consistency proofs.

A leaf is ``SHA-256(0x00 || entry)``, an interior node ``SHA-256(0x01 || left || right)``; a
tree of n leaves splits at the largest power of two smaller than n. The prefixes keep a leaf
from posing as a node.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pbem.ledger.canonical import sha256


class ProofError(ValueError):
    """A proof that does not prove what it claims."""


def leaf_hash(entry: bytes) -> bytes:
    return sha256(b"\x00" + entry)


def node_hash(left: bytes, right: bytes) -> bytes:
    return sha256(b"\x01" + left + right)


def _split(n: int) -> int:
    """The largest power of two smaller than n (n >= 2)."""
    return 1 << ((n - 1).bit_length() - 1)


def root(leaves: Sequence[bytes]) -> bytes:
    """The tree hash of a list of leaf hashes (SHA-256 of nothing for the empty tree)."""
    if not leaves:
        return sha256(b"")
    level = list(leaves)
    # Bottom-up pairing gives the same tree as the recursive split: a lone last node is
    # carried up unchanged, exactly where the RFC's unbalanced right subtree sits.
    while len(level) > 1:
        paired = [node_hash(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    return level[0]


def prefix_roots(leaves: Sequence[bytes], sizes: Iterable[int]) -> dict[int, bytes]:
    """The roots of the trees of the first n leaves, for every n in ``sizes``, in one pass of a
    growing ``Frontier`` (linear, instead of one whole root per size)."""
    wanted = set(sizes)
    frontier = Frontier()
    roots = {0: frontier.root()} if 0 in wanted else {}
    for leaf in leaves:
        frontier.append(leaf)
        if frontier.size in wanted:
            roots[frontier.size] = frontier.root()
    return roots


def inclusion_proof(index: int, leaves: Sequence[bytes]) -> list[bytes]:
    """The audit path of leaf ``index`` in the tree of ``leaves`` (RFC 9162 2.1.3.1)."""
    if not 0 <= index < len(leaves):
        raise ProofError(f"leaf {index} is not in a tree of size {len(leaves)}")
    if len(leaves) == 1:
        return []
    k = _split(len(leaves))
    if index < k:
        return [*inclusion_proof(index, leaves[:k]), root(leaves[k:])]
    return [*inclusion_proof(index - k, leaves[k:]), root(leaves[:k])]


def verify_inclusion(index: int, size: int, leaf: bytes, path: Sequence[bytes], expected_root: bytes) -> None:
    """Raise ProofError unless ``path`` proves ``leaf`` is leaf ``index`` of the tree (2.1.3.2)."""
    if not 0 <= index < size:
        raise ProofError(f"leaf {index} is not in a tree of size {size}")
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            raise ProofError("inclusion proof is too long")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    if sn != 0 or r != expected_root:
        raise ProofError(f"inclusion proof for leaf {index} does not lead to the root of size {size}")


def consistency_proof(old_size: int, leaves: Sequence[bytes]) -> list[bytes]:
    """Proof that the tree of the first ``old_size`` leaves is a prefix of ``leaves`` (2.1.4.1)."""
    if not 0 <= old_size <= len(leaves):
        raise ProofError(f"no tree of size {old_size} inside a tree of size {len(leaves)}")
    if old_size in (0, len(leaves)):
        return []
    return _subproof(old_size, leaves, True)


def _subproof(m: int, leaves: Sequence[bytes], complete: bool) -> list[bytes]:
    n = len(leaves)
    if m == n:
        return [] if complete else [root(leaves)]
    k = _split(n)
    if m <= k:
        return [*_subproof(m, leaves[:k], complete), root(leaves[k:])]
    return [*_subproof(m - k, leaves[k:], False), root(leaves[:k])]


def verify_consistency(old_size: int, new_size: int, old_root: bytes, new_root: bytes, path: Sequence[bytes]) -> None:
    """Raise ProofError unless ``path`` proves the old tree is a prefix of the new (2.1.4.2)."""
    if _trivially_consistent(old_size, new_size, old_root, new_root, path):
        return
    proof = list(path)
    if old_size & (old_size - 1) == 0:
        proof.insert(0, old_root)
    fr, sr, sn = _consistency_roots(old_size - 1, new_size - 1, proof)
    if sn != 0 or fr != old_root or sr != new_root:
        raise ProofError(f"tree of size {old_size} is not a prefix of the tree of size {new_size}")


def _trivially_consistent(
    old_size: int, new_size: int, old_root: bytes, new_root: bytes, path: Sequence[bytes]
) -> bool:
    """True for the sizes whose proof is empty (and is), False when there is a path to walk;
    raises ProofError for sizes or a path that cannot be."""
    if not 0 <= old_size <= new_size:
        raise ProofError(f"size {old_size} cannot precede size {new_size}")
    if old_size == 0:
        if path:
            raise ProofError("a proof from the empty tree must be empty")
        return True
    if old_size == new_size:
        if path or old_root != new_root:
            raise ProofError(f"two different trees claim size {old_size}")
        return True
    if not path:
        raise ProofError("consistency proof is empty")
    return False


def _consistency_roots(fn: int, sn: int, proof: list[bytes]) -> tuple[bytes, bytes, int]:
    """The old and the new root that the proof leads to (RFC 9162 2.1.4.2, steps 4 to 6),
    and what is left of the new tree's last index (0 for a proof of the right length)."""
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = proof[0]
    for c in proof[1:]:
        if sn == 0:
            raise ProofError("consistency proof is too long")
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return fr, sr, sn


class Frontier:
    """The compact range of a growing log: the roots of its perfect subtrees, largest first.
    Appending a leaf and taking the root cost O(log n), so signing after a move never rehashes
    the whole log. Copies are cheap (a short list of pairs). The root folds the subtrees from
    the right, which is exactly the RFC's split at the largest power of two."""

    def __init__(self, stack: Sequence[tuple[int, bytes]] = (), size: int = 0):
        self.stack: list[tuple[int, bytes]] = list(stack)  # (height, subtree root)
        self.size = size

    @classmethod
    def of(cls, leaves: Iterable[bytes]) -> Frontier:
        frontier = cls()
        for leaf in leaves:
            frontier.append(leaf)
        return frontier

    def copy(self) -> Frontier:
        return Frontier(self.stack, self.size)

    def append(self, leaf: bytes) -> None:
        height, node = 0, leaf
        while self.stack and self.stack[-1][0] == height:
            node = node_hash(self.stack.pop()[1], node)
            height += 1
        self.stack.append((height, node))
        self.size += 1

    def root(self) -> bytes:
        if not self.stack:
            return root([])
        folded = self.stack[-1][1]
        for _, left in reversed(self.stack[:-1]):
            folded = node_hash(left, folded)
        return folded
