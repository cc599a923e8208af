"""A body that is not text is refused both ways with one kind of message: bytes that are not
UTF-8 (a JSON body) and text with a lone surrogate (a body written to a file)."""

from __future__ import annotations

import pytest

from uac.errors import InputError
from uac.server.http.bodies import body_file, not_text
from uac.server.http.jsonbody import parse_body


def test_bytes_that_are_not_utf8_say_which_byte_and_where():
    with pytest.raises(InputError) as caught:
        parse_body(b'{"a": "\xc3\x28"}')
    assert caught.value.message == "the request body is not UTF-8: byte 0xc3 at offset 7 cannot be decoded."
    assert caught.value.hint == "Send JSON encoded as UTF-8."


def test_text_with_a_lone_surrogate_says_which_character_and_writes_no_file():
    with pytest.raises(InputError) as caught, body_file("ok \ud83d then", ".json", "the session argument"):
        pytest.fail("no file for text that is not text")
    assert caught.value.message == (
        "the session argument holds a lone surrogate at character 3 ('\\ud83d'), which is not text."
    )
    assert caught.value.hint.startswith("Send valid Unicode: a character outside the BMP is a pair of escapes")


def test_one_function_says_both():
    decoded = pytest.raises(UnicodeDecodeError, b"\xff".decode, "utf-8").value
    encoded = pytest.raises(UnicodeEncodeError, "\udc00".encode, "utf-8").value
    assert not_text(decoded, "x").message == "x is not UTF-8: byte 0xff at offset 0 cannot be decoded."
    assert not_text(encoded, "y").message == "y holds a lone surrogate at character 0 ('\\udc00'), which is not text."
    with body_file("plain text", ".txt") as path:
        assert path.read_text("utf-8") == "plain text"
