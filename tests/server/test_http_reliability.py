"""HTTP: no file is served through a link out of the project; imported data can be deleted."""

from __future__ import annotations


def test_manifest_and_domain_files_behind_links_are_not_served(fresh_client, fresh_root, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("password=hunter2\n")
    alice = fresh_root.root / "alice"
    (alice / "MANIFEST.md").unlink()
    (alice / "MANIFEST.md").symlink_to(secret)
    folder = alice / "domains" / "pets"
    folder.mkdir(parents=True)
    (folder / "schema.py").write_text("from dataclasses import dataclass\n\n\n@dataclass\nclass Pet:\n    name: str\n")
    (folder / "state.py").symlink_to(secret)
    headers = fresh_root.auth("alice")

    manifest = fresh_client.get("/v1/projects/alice/manifest", headers=headers)
    code = fresh_client.get("/v1/projects/alice/domains/pets", headers=headers)
    for response in (manifest, code):
        assert response.status_code == 400, response.text
        assert response.json()["error"]["code"] == "unsafe_path"
        assert "hunter2" not in response.text
        assert str(tmp_path) not in response.text


def test_export_leaves_links_out(fresh_client, fresh_root, tmp_path):
    import io
    import tarfile

    secret = tmp_path / "secret.txt"
    secret.write_text("password=hunter2\n")
    (fresh_root.root / "alice" / "secret.txt").symlink_to(secret)
    (fresh_root.root / "alice" / "zero.bin").symlink_to("/dev/zero")
    response = fresh_client.get("/v1/projects/alice/export", headers=fresh_root.auth("alice"))
    assert response.status_code == 200
    with tarfile.open(fileobj=io.BytesIO(response.content)) as tar:
        names = tar.getnames()
    assert "alice/MANIFEST.md" in names
    assert not any(n.endswith(("secret.txt", "zero.bin")) for n in names)


def test_delete_a_domain_collection_then_the_domain(fresh_client, fresh_root):
    headers = fresh_root.auth("alice")
    body = {"domain": "travel", "collection": "trips", "records": [{"city": "Oslo"}, {"city": "Rome"}]}
    assert fresh_client.post("/v1/projects/alice/records", json=body, headers=headers).status_code == 200
    again = fresh_client.post("/v1/projects/alice/records", json=body, headers=headers).json()
    assert again["records_added"] == 0 and again["records_total"] == 2
    body["collection"] = "stays"
    assert fresh_client.post("/v1/projects/alice/records", json=body, headers=headers).status_code == 200
    one = fresh_client.delete("/v1/projects/alice/domains/travel?collection=trips", headers=headers)
    assert one.status_code == 200 and one.json()["collections_removed"] == ["trips"]
    assert fresh_client.get("/v1/projects/alice/domains", headers=headers).json()["domains"] == ["travel"]
    whole = fresh_client.delete("/v1/projects/alice/domains/travel", headers=headers)
    assert whole.status_code == 200 and whole.json()["domain_removed"] is True
    assert fresh_client.get("/v1/projects/alice/domains", headers=headers).json()["domains"] == []
    missing = fresh_client.delete("/v1/projects/alice/domains/travel", headers=headers)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "domain_not_found"


def test_names_with_a_trailing_newline_are_refused(fresh_client, fresh_root):
    headers = fresh_root.auth("alice")
    for domain, collection in (("t\n", "trips"), ("travel", "trips\n")):
        body = {"domain": domain, "collection": collection, "records": [{"city": "Oslo"}]}
        response = fresh_client.post("/v1/projects/alice/records", json=body, headers=headers)
        assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_name", response.text
    assert sorted(p.name for p in (fresh_root.root / "alice" / "domains").iterdir() if p.is_dir()) == []
    admin = {"Authorization": f"Bearer {fresh_root.admin}"}
    created = fresh_client.post("/v1/projects", json={"name": "evil\n"}, headers=admin)
    assert created.status_code in (400, 422) and not (fresh_root.root / "evil\n").exists()
