# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Tests/e2e/vm/kernel.sh: Debian's kernel for the qemu guests, sourced by Tests/e2e/run and
# Tests/e2e-systemd/run. Needs CACHE (a folder outside the repository) and the caller's
# note/die. ensure_kernel sets KVER, and KERNEL (the uncompressed vmlinux, or the bzImage):
# the linux-image-amd64 dependency is fetched once with `apt-get download`, extracted with
# `dpkg-deb -x` into $CACHE/kernel (never installed), and its modules are depmod'ed there.

kernel_package() {   # the linux-image-X package linux-image-amd64 depends on
  local k
  k=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
  if [ -z "$k" ]; then
    apt-get update >&2 || true
    k=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
  fi
  [ -n "$k" ] || die "cannot resolve linux-image-amd64 (apt sources?)"
  echo "$k"
}

ensure_kernel() {
  local kpkg deb
  if [ ! -s "$CACHE/kernel.ok" ]; then
    kpkg=$(kernel_package)
    note "downloading $kpkg (extracted into $CACHE, never installed)"
    mkdir -p "$CACHE/debs"
    (cd "$CACHE/debs" && apt-get download "$kpkg" 2>&1 | grep -v 'unsandboxed' >&2) || true
    deb=$(find "$CACHE/debs" -name "${kpkg}_*.deb" | sort | tail -n 1)
    [ -n "$deb" ] || die "apt-get download $kpkg failed"
    rm -rf "$CACHE/kernel"
    dpkg-deb -x "$deb" "$CACHE/kernel"
    KVER=$(ls "$CACHE/kernel/lib/modules")
    depmod -b "$CACHE/kernel" "$KVER"
    echo "$KVER" > "$CACHE/kernel.ok"
    rm -f "$deb"                                   # extracted: the .deb is not needed
  fi
  KVER=$(cat "$CACHE/kernel.ok")
  # uncompressed ELF vmlinux, booted through its PVH entry: saves ~7 s of in-guest
  # xz decompression under TCG; falls back to the bzImage if that is not possible
  KERNEL=$CACHE/vmlinux-$KVER
  if [ ! -s "$KERNEL" ]; then
    if /usr/bin/python3 - "$CACHE/kernel/boot/vmlinuz-$KVER" "$KERNEL.tmp" <<'EOF'; then mv "$KERNEL.tmp" "$KERNEL"; else rm -f "$KERNEL.tmp"; fi
import lzma, sys
d = open(sys.argv[1], "rb").read()
i = d.find(b"\xfd7zXZ\0")
assert i > 0, "no xz payload"
out = lzma.LZMADecompressor().decompress(d[i:])
assert out[:4] == b"\x7fELF", "payload is not an ELF vmlinux"
open(sys.argv[2], "wb").write(out)
EOF
  fi
  [ -s "$KERNEL" ] || KERNEL=$CACHE/kernel/boot/vmlinuz-$KVER
}
