# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Tests/e2e/vm/kernel.sh: Debian's kernel for the qemu guests, sourced by Tests/e2e/run and
# Tests/e2e-systemd/run. Needs CACHE (a folder outside the repository) and the caller's
# note/die. ensure_kernel sets KVER, KDIR (the extracted tree: boot/, lib/modules/KVER) and KERNEL
# (the uncompressed vmlinux, or the bzImage). E2E_KERNEL chooses the kernel:
#   bookworm (default)  the host's linux-image-amd64 (Debian 12: 6.1), in $CACHE/kernel
#   trixie              Debian 13's linux-image-amd64 (6.12, what Raspberry Pi OS trixie builds on)
#   trixie-backports    the newest kernel Debian ships (trixie-backports' linux-image-amd64)
# Each is fetched once with `apt-get download` (trixie's through a private source list, its lists
# and cache in $CACHE/apt-trixie: the host's apt is not touched), extracted with `dpkg-deb -x`
# (never installed) into $CACHE/kernel or $CACHE/kernel-NAME, and its modules are depmod'ed there.
# Debian 13's packages are usr-merged (usr/lib/modules is moved to lib/modules); the backports
# kernel is split into linux-binary-K (its vmlinuz in the modules folder, moved to boot/),
# linux-modules-K and linux-base-K (modules.order and .builtin: without them modprobe does not
# know what is built in). Compressed modules (.ko.xz) are unpacked.

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

# trixie_apt TOOL ARGS...: apt-get or apt-cache with Debian 13's and trixie-backports' main as the
# only sources, in $CACHE/apt-trixie.
trixie_apt() {
  local tool=$1 t=$CACHE/apt-trixie m
  shift
  if [ ! -s "$t/sources.list" ]; then
    m=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2> /dev/null | grep -v -- -security | head -n 1)
    [ -n "$m" ] || m=http://deb.debian.org/debian
    mkdir -p "$t/lists/partial" "$t/cache/archives/partial"
    printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' "$m" trixie "$m" trixie-backports > "$t/sources.list"
  fi
  "$tool" -o "Dir::Etc::sourcelist=$t/sources.list" -o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$t/lists" \
    -o "Dir::Cache=$t/cache" -o APT::Get::List-Cleanup=0 "$@"
}

# fetch_kernel NAME DIR: the kernel's packages extracted into DIR (boot/vmlinuz-K, lib/modules/K);
# prints K.
fetch_kernel() {
  local name=$1 dir=$2 pkgs=() k v deb p
  case $name in
    bookworm) pkgs=("$(kernel_package)") ;;
    trixie|trixie-backports)
      trixie_apt apt-get update > /dev/null 2>&1 || die "apt-get update (trixie, $CACHE/apt-trixie) failed"
      v=$(trixie_apt apt-cache madison linux-image-amd64 | awk -F' [|] ' -v s="$name/main" 'index($3, " " s " ") {print $2; exit}')
      [ -n "$v" ] || die "no linux-image-amd64 in $name"
      k=$(trixie_apt apt-cache show "linux-image-amd64=$v" | sed -n 's/^Depends:.*\(linux-image-[0-9][^ ,]*\).*/\1/p' | head -n 1)
      [ -n "$k" ] || die "cannot resolve linux-image-amd64=$v"
      k=${k#linux-image-}
      if trixie_apt apt-cache show "linux-binary-$k" > /dev/null 2>&1; then
        pkgs=("linux-binary-$k" "linux-modules-$k" "linux-base-$k")
      else
        pkgs=("linux-image-$k")
      fi ;;
    *) die "E2E_KERNEL=$name: use bookworm, trixie or trixie-backports" ;;
  esac
  note "downloading ${pkgs[*]} (extracted into $dir, never installed)"
  rm -rf "$CACHE/debs" "$dir" && mkdir -p "$CACHE/debs" "$dir"
  local apt=(apt-get)
  [ "$name" = bookworm ] || apt=(trixie_apt apt-get)
  (cd "$CACHE/debs" && "${apt[@]}" download "${pkgs[@]}" 2>&1 | grep -v 'unsandboxed' >&2) || true
  for p in "${pkgs[@]}"; do
    deb=$(find "$CACHE/debs" -name "${p}_*.deb" | sort | tail -n 1)
    [ -n "$deb" ] || die "apt-get download $p failed"
    dpkg-deb -x "$deb" "$dir"
  done
  rm -rf "$CACHE/debs"
  if [ -d "$dir/usr/lib/modules" ]; then
    mkdir -p "$dir/lib"
    mv "$dir/usr/lib/modules" "$dir/lib/modules"
  fi
  k=$(ls "$dir/lib/modules")
  [ -e "$dir/boot/vmlinuz-$k" ] || { mkdir -p "$dir/boot"; mv "$dir/lib/modules/$k/vmlinuz" "$dir/boot/vmlinuz-$k"; }
  # Debian 13 ships its modules xz-compressed: unpacked here, so that the initramfs's busybox
  # insmod loads them as it loads 6.1's
  find "$dir/lib/modules/$k" -name '*.ko.xz' -print0 | xargs -0 -r -n 200 -P 2 xz -d
  depmod -b "$dir" "$k"
  echo "$k"
}

ensure_kernel() {
  local name=${E2E_KERNEL:-bookworm} ok
  if [ "$name" = bookworm ]; then KDIR=$CACHE/kernel ok=$CACHE/kernel.ok; else KDIR=$CACHE/kernel-$name ok=$CACHE/kernel-$name.ok; fi
  if [ ! -s "$ok" ]; then
    fetch_kernel "$name" "$KDIR" > "$ok.tmp" && mv "$ok.tmp" "$ok"
  fi
  KVER=$(cat "$ok")
  # uncompressed ELF vmlinux, booted through its PVH entry: saves ~7 s of in-guest
  # xz decompression under TCG; falls back to the bzImage if that is not possible (the backports
  # kernel's vmlinuz is not xz-compressed)
  KERNEL=$CACHE/vmlinux-$KVER
  if [ ! -s "$KERNEL" ]; then
    if /usr/bin/python3 - "$KDIR/boot/vmlinuz-$KVER" "$KERNEL.tmp" 2> /dev/null <<'EOF'; then mv "$KERNEL.tmp" "$KERNEL"; else rm -f "$KERNEL.tmp"; fi
import lzma, sys
d = open(sys.argv[1], "rb").read()
i = d.find(b"\xfd7zXZ\0")
assert i > 0, "no xz payload"
out = lzma.LZMADecompressor().decompress(d[i:])
assert out[:4] == b"\x7fELF", "payload is not an ELF vmlinux"
open(sys.argv[2], "wb").write(out)
EOF
  fi
  [ -s "$KERNEL" ] || KERNEL=$KDIR/boot/vmlinuz-$KVER
}
