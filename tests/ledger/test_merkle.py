"""RFC 9162 tree hashing, inclusion and consistency proofs."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.ledger import merkle
from pbem.ledger.merkle import ProofError

# The inputs and roots of the Certificate Transparency reference test vectors.
CT_LEAVES = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"]
CT_ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]


def _leaves(n):
    return [merkle.leaf_hash(i.to_bytes(4, "big")) for i in range(n)]


def _recursive_root(leaves):
    if len(leaves) == 1:
        return leaves[0]
    k = 1 << ((len(leaves) - 1).bit_length() - 1)
    return merkle.node_hash(_recursive_root(leaves[:k]), _recursive_root(leaves[k:]))


def test_root_matches_the_certificate_transparency_vectors():
    leaves = [merkle.leaf_hash(bytes.fromhex(x)) for x in CT_LEAVES]
    for size, expected in enumerate(CT_ROOTS, start=1):
        assert merkle.root(leaves[:size]).hex() == expected


def test_empty_tree_is_the_hash_of_nothing():
    assert merkle.root([]).hex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_leaf_and_node_hashes_are_domain_separated():
    a, b = merkle.leaf_hash(b"a"), merkle.leaf_hash(b"b")
    assert merkle.leaf_hash(a + b) != merkle.node_hash(a, b)


@given(st.integers(min_value=1, max_value=70))
def test_bottom_up_root_equals_the_recursive_definition(n):
    leaves = _leaves(n)
    assert merkle.root(leaves) == _recursive_root(leaves)


@given(st.integers(min_value=1, max_value=70), st.data())
def test_every_inclusion_proof_verifies(n, data):
    leaves = _leaves(n)
    index = data.draw(st.integers(min_value=0, max_value=n - 1))
    merkle.verify_inclusion(index, n, leaves[index], merkle.inclusion_proof(index, leaves), merkle.root(leaves))


@given(st.integers(min_value=2, max_value=70), st.data())
def test_inclusion_proof_fails_for_another_leaf_or_index(n, data):
    leaves = _leaves(n)
    index = data.draw(st.integers(min_value=0, max_value=n - 1))
    proof = merkle.inclusion_proof(index, leaves)
    with pytest.raises(ProofError):
        merkle.verify_inclusion(index, n, merkle.leaf_hash(b"forged"), proof, merkle.root(leaves))
    other = (index + 1) % n
    with pytest.raises(ProofError):
        merkle.verify_inclusion(other, n, leaves[index], proof, merkle.root(leaves))


@given(st.integers(min_value=1, max_value=70), st.data())
def test_every_consistency_proof_verifies(n, data):
    leaves = _leaves(n)
    m = data.draw(st.integers(min_value=0, max_value=n))
    proof = merkle.consistency_proof(m, leaves)
    merkle.verify_consistency(m, n, merkle.root(leaves[:m]), merkle.root(leaves), proof)


@given(st.integers(min_value=2, max_value=70), st.data())
def test_consistency_fails_when_history_was_rewritten(n, data):
    leaves = _leaves(n)
    m = data.draw(st.integers(min_value=1, max_value=n - 1))
    changed = list(leaves)
    changed[data.draw(st.integers(min_value=0, max_value=m - 1))] = merkle.leaf_hash(b"rewritten")
    proof = merkle.consistency_proof(m, changed)
    with pytest.raises(ProofError):
        merkle.verify_consistency(m, n, merkle.root(leaves[:m]), merkle.root(changed), proof)


@given(st.integers(min_value=0, max_value=70), st.data())
def test_prefix_roots_in_one_pass_equal_each_root(n, data):
    leaves = _leaves(n)
    sizes = data.draw(st.sets(st.integers(min_value=0, max_value=n)))
    assert merkle.prefix_roots(leaves, sizes) == {size: merkle.root(leaves[:size]) for size in sizes}


SMALL = range(1, 18)  # every shape of tree up to 17 leaves: full, one short of full, one over


def test_every_inclusion_proof_of_every_small_tree_verifies():
    for n in SMALL:
        leaves = _leaves(n)
        for index in range(n):
            merkle.verify_inclusion(index, n, leaves[index], merkle.inclusion_proof(index, leaves), merkle.root(leaves))


def test_every_consistency_proof_between_small_trees_verifies():
    for n in SMALL:
        leaves = _leaves(n)
        for m in range(n + 1):
            proof = merkle.consistency_proof(m, leaves)
            merkle.verify_consistency(m, n, merkle.root(leaves[:m]), merkle.root(leaves), proof)


@pytest.mark.parametrize("index", [-1, 5])
def test_a_leaf_outside_the_tree_has_no_inclusion_proof(index):
    leaves = _leaves(5)
    with pytest.raises(ProofError, match=f"leaf {index} is not in a tree of size 5"):
        merkle.inclusion_proof(index, leaves)
    with pytest.raises(ProofError, match=f"leaf {index} is not in a tree of size 5"):
        merkle.verify_inclusion(index, 5, leaves[0], merkle.inclusion_proof(0, leaves), merkle.root(leaves))


def _tree(n=6):
    leaves = _leaves(n)
    return leaves, merkle.root(leaves)


# Each refusal names what is wrong: `pbem verify`, the witness and the web's verify page show
# these sentences as the reason a proof was refused.
REFUSALS = {
    "inclusion proof is too long": lambda: merkle.verify_inclusion(
        0, 6, _tree()[0][0], [*merkle.inclusion_proof(0, _tree()[0]), b"x" * 32], _tree()[1]
    ),
    "inclusion proof for leaf 2 does not lead to the root of size 6": lambda: merkle.verify_inclusion(
        2, 6, merkle.leaf_hash(b"forged"), merkle.inclusion_proof(2, _tree()[0]), _tree()[1]
    ),
    "no tree of size 7 inside a tree of size 6": lambda: merkle.consistency_proof(7, _tree()[0]),
    "size 5 cannot precede size 3": lambda: merkle.verify_consistency(5, 3, b"", b"", []),
    "a proof from the empty tree must be empty": lambda: merkle.verify_consistency(0, 6, b"", _tree()[1], [b"x"]),
    "two different trees claim size 6": lambda: merkle.verify_consistency(6, 6, b"y" * 32, _tree()[1], []),
    "consistency proof is empty": lambda: merkle.verify_consistency(3, 6, merkle.root(_tree()[0][:3]), _tree()[1], []),
    "consistency proof is too long": lambda: merkle.verify_consistency(
        3, 6, merkle.root(_tree()[0][:3]), _tree()[1], [*merkle.consistency_proof(3, _tree()[0]), *[b"x" * 32] * 4]
    ),
    "tree of size 3 is not a prefix of the tree of size 6": lambda: merkle.verify_consistency(
        3, 6, merkle.leaf_hash(b"other"), _tree()[1], merkle.consistency_proof(3, _tree()[0])
    ),
}


@pytest.mark.parametrize("reason", sorted(REFUSALS))
def test_a_refused_proof_says_why(reason):
    with pytest.raises(ProofError) as refused:
        REFUSALS[reason]()
    assert str(refused.value) == reason
