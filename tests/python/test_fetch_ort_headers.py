"""cmake/fetch_ort_headers.py: integrity check and header-only extraction (offline, synthetic tarballs)."""
from __future__ import annotations

import importlib.util
import io
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("fetch_ort_headers", ROOT / "cmake" / "fetch_ort_headers.py")
fetch = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fetch)


def make_tgz(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_integrity_mismatch_fails_loudly():
    with pytest.raises(SystemExit, match="integrity mismatch"):
        fetch.verify(make_tgz({"package/x": b"tampered"}))


def test_extracts_only_the_header_folder(tmp_path):
    h = fetch.HEADER_DIR
    data = make_tgz({
        h + "onnxruntime_c_api.h": b"// c api",
        h + "onnxruntime_cxx_api.h": b"// cxx api",
        h + "sub/evil.h": b"nested",                 # not flat: skipped
        "package/Plugins/other/lib.a": b"binary",    # outside the header folder: skipped
        h + "../../escape.h": b"escape",             # path trick: skipped
    })
    dest = tmp_path / "cache" / "include"
    names = fetch.extract(data, str(dest))
    assert names == ["onnxruntime_c_api.h", "onnxruntime_cxx_api.h"]
    assert sorted(p.name for p in dest.iterdir()) == names
    assert not (tmp_path / "escape.h").exists()


def test_missing_headers_rejected(tmp_path):
    data = make_tgz({fetch.HEADER_DIR + "onnxruntime_c_api.h": b"// only one"})
    with pytest.raises(SystemExit, match="onnxruntime_cxx_api.h"):
        fetch.extract(data, str(tmp_path / "include"))
    assert list(tmp_path.iterdir()) == []  # no partial folder left behind


def test_real_tarball_if_cached(tmp_path):
    """The pinned npm tarball, when a copy lies on this machine (dev machines)."""
    local = Path("/tmp/ortnpm/com.github.asus4.onnxruntime-0.4.9.tgz")
    if not local.is_file():
        pytest.skip("no local copy of the npm tarball")
    data = local.read_bytes()
    fetch.verify(data)
    names = fetch.extract(data, str(tmp_path / "include"))
    assert "onnxruntime_c_api.h" in names and "onnxruntime_lite_custom_op.h" in names
    assert '#define ORT_API_VERSION 29' in (tmp_path / "include" / "onnxruntime_c_api.h").read_text()
