"""FileStamp: a file's identity as derived data compares it, and its stored forms."""

from __future__ import annotations

import json
import os

import pytest

from uac.filestamp import FileStamp


def test_a_stamp_names_the_file_and_says_when_there_is_none(tmp_path):
    path = tmp_path / "corpus.jsonl"
    assert FileStamp.of(path) == FileStamp.missing() and not FileStamp.of(path).exists
    path.write_bytes(b"one line\n")
    st = path.stat()
    stamp = FileStamp.of(path)
    assert stamp == FileStamp(st.st_size, st.st_mtime_ns, st.st_ino) and stamp.exists
    assert (stamp.size, stamp.mtime_ns, stamp.inode) == (9, st.st_mtime_ns, st.st_ino)
    assert FileStamp.unreadable().is_unreadable and not FileStamp.unreadable().exists
    assert not FileStamp.missing().is_unreadable and FileStamp.missing() != FileStamp.unreadable()


def test_a_link_is_stamped_itself_when_asked(tmp_path):
    target = tmp_path / "target"
    target.write_text("x" * 50)
    link = tmp_path / "link"
    link.symlink_to(target)
    assert FileStamp.of(link) == FileStamp.of(target)
    assert FileStamp.of(link, follow_symlinks=False).inode == link.lstat().st_ino != target.stat().st_ino
    assert FileStamp.of(tmp_path / "dangling", follow_symlinks=False) == FileStamp.missing()


def test_stored_forms_read_both_ways(tmp_path):
    """Saved as a list of three integers, as the plain tuples were; read back from a
    list or a tuple, and equal to the tuples earlier versions compared."""
    path = tmp_path / "f"
    path.write_text("abc")
    stamp = FileStamp.of(path)
    saved = json.loads(json.dumps({"corpus": stamp.to_json()}))["corpus"]
    assert saved == [stamp.size, stamp.mtime_ns, stamp.inode]
    assert FileStamp.from_json(saved) == stamp == tuple(saved)
    assert FileStamp.from_json(tuple(saved)) == stamp
    for damaged in (None, "1,2,3", [1, 2], [1, 2, 3, 4], ["a", 2, 3], {"size": 1}):
        assert FileStamp.from_json(damaged) is None
        with pytest.raises(ValueError, match="not a file stamp"):
            FileStamp.saved(damaged)
    assert FileStamp.saved(saved) == stamp


def test_same_times_ignores_the_inode_only(tmp_path):
    path = tmp_path / "f"
    path.write_text("abc")
    stamp = FileStamp.of(path)
    copy = FileStamp(stamp.size, stamp.mtime_ns, stamp.inode + 1)  # cp -a: another inode, same times
    assert stamp.same_times(copy) and stamp.same_times(tuple(copy)) and stamp != copy
    assert not stamp.same_times(FileStamp(stamp.size + 1, stamp.mtime_ns, stamp.inode))
    assert not stamp.same_times(FileStamp(stamp.size, stamp.mtime_ns + 1, stamp.inode))


def test_a_flat_copy_sidecar_of_an_earlier_version_still_matches(tmp_path):
    """The sidecar records the corpus stamp as a plain list: one written before
    FileStamp existed is read as it was."""
    from uac.index.flat import FlatVectors

    corpus = tmp_path / "facts.jsonl"
    corpus.write_text('{"id": "a"}\n')
    flat = FlatVectors(tmp_path / "facts.vectors", dim=4)
    flat.path.write_bytes(b"\0" * 16)
    st = corpus.stat()
    flat.meta_path.write_text(json.dumps({"dim": 4, "rows": 1, "corpus": [st.st_size, st.st_mtime_ns, st.st_ino]}))
    assert flat.matches(FileStamp.of(corpus), 1)
    assert not flat.matches(FileStamp.of(corpus), 2)
    os.utime(corpus, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    flat.forget()
    assert not flat.matches(FileStamp.of(corpus), 1)


def test_a_token_file_replaced_within_one_tick_is_read_again(tmp_path):
    """A token file replaced by one of the same size and modification time (a restored
    copy, or two writes within one tick of a coarse clock) is another file: the
    tokens are read again, so a token replaced this way stops being accepted."""
    from uac.server.tokens import TokenStore

    path = tmp_path / "auth" / "tokens.json"
    store = TokenStore(path)
    token, record = store.create("laptop")
    assert store.verify(token) == record
    st = path.stat()
    replacement = tmp_path / "replacement.json"
    other_id = "0" * 8 if record.id != "0" * 8 else "1" * 8
    replacement.write_text(path.read_text().replace(record.id, other_id))  # the same size
    os.utime(replacement, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(replacement, path)
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns
    assert TokenStore(path).verify(token) is None
    assert [r.id for r in TokenStore(path).records()] == [other_id]


def test_a_kept_read_reads_again_only_when_the_file_changed(tmp_path):
    from uac.filestamp import KeptRead

    path = tmp_path / "meta.json"
    reads: list[str] = []

    def read(p):
        reads.append(p.name)
        return p.read_text() if p.exists() else None

    kept = KeptRead(path, read)
    assert kept.get() is None and kept.get() is None and reads == ["meta.json"]
    path.write_text("one")
    assert kept.get() == "one" and kept.get() == "one" and len(reads) == 2
    path.write_text("three")  # another size: another stamp
    assert kept.get() == "three" and len(reads) == 3
    kept.keep("as written")  # what a writer just wrote is kept for the file's stamp now
    assert kept.get() == "as written" and len(reads) == 3
    kept.forget()
    assert kept.get() == "three" and len(reads) == 4


def test_a_derived_json_file_reads_as_an_object_or_none(tmp_path):
    from uac.fsutil import read_json_object

    path = tmp_path / "state.json"
    assert read_json_object(path) is None  # missing
    path.write_text('{"version": 2}')
    assert read_json_object(path) == {"version": 2}
    for broken in ("[1, 2]", '"text"', "{not json", ""):
        path.write_text(broken)
        assert read_json_object(path) is None, broken
    path.write_bytes(b'{"a": "\xff"}')  # not UTF-8
    assert read_json_object(path) is None
    assert read_json_object(tmp_path) is None  # a directory
