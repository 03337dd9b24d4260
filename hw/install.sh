#!/usr/bin/env bash
# hw/install.sh: set up a Raspberry Pi running Raspberry Pi OS Bookworm (Debian 12, arm64) as a
# Handoff pack: Debian packages, the handoff system user, handoffd and handoff in /usr/local/bin,
# /etc/handoff/handoff.toml, udev rules, gpsd, and handoffd.service. Safe to run again: it changes
# only what differs, and never overwrites a runner's handoff.toml.
#
# Usage: sudo hw/install.sh (--binary DIR|TARBALL | --build) [options]
#   --binary PATH       prebuilt release binaries: a folder (or a .tar, .tar.gz, .tgz, .tar.xz)
#                       holding handoffd and handoff [and handoff-store], built with
#                       `swift build -c release --static-swift-stdlib` for this machine's
#                       architecture (hw/README.md, "Building handoffd for the Pi")
#   --build             build them here first (needs swift on PATH)
#   --gps-device DEV    the GPS receiver: auto (default: a u-blox USB receiver, else the header
#                       UART /dev/serial0 when it is on, else none), uart, usb, none, or a
#                       device such as /dev/ttyAMA0 (a Pi 5's header UART) or /dev/ttyUSB0
#   --store-unit        also install handoff-store.service (disabled) and
#                       /etc/default/handoff-store, for hosting the group store here
#   --configure-boot    add enable_uart=1 / dtparam=i2c_arm=on to config.txt and take the serial
#                       console off cmdline.txt (each kept as FILE.handoff-backup first); without
#                       it the script only says what to change
#   --no-packages       do not run apt-get (the packages are there already, or no network)
#   --root DIR          install into the system mounted at DIR (an image being prepared, a
#                       scratch root): every path is under DIR, commands run in `chroot DIR`,
#                       units are enabled with `systemctl --root DIR`
#   --dry-run           print, as a numbered list, what would be done; change nothing; exit 0
#   --force             go on although the system is not Debian 12 or the binaries' architecture
#                       is not the system's
#   -h, --help          this text
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"

# Debian packages the pack needs at run time. The binaries themselves link libc6, libstdc++6,
# libgcc-s1 (always there), libbluetooth3, libsqlite3-0 and libcurl4 (`ldd handoffd`; with
# --static-swift-stdlib the Swift runtime, Foundation and ICU are inside the binary).
PACKAGES=(
    libbluetooth3   # handoffd: BlueZ's libbluetooth (HCI, L2CAP, RFCOMM, SDP)
    libsqlite3-0    # the journal (and the store's SQLite engine)
    libcurl4        # Foundation's URLSession: uploads to the group store
    ca-certificates # …over HTTPS
    bluez           # btmgmt, btmon, bluetoothctl: looking at the adapter (hw/bluetooth.md)
    rfkill          # handoffd.service unblocks Bluetooth before starting
    gpsd            # owns the GPS receiver; handoffd reads it on 127.0.0.1:2947
    gpsd-tools      # cgps, gpsmon: watching the receiver (not gpsd-clients: it pulls in
                    # matplotlib and GTK, over 1 GB on Bookworm, for xgps)
    iw              # how handoffd reads the Wi-Fi without wpa_supplicant's control socket
    gpiod           # gpiodetect, gpioinfo: finding the button's and LED's lines
    libgpiod2
    i2c-tools       # i2cdetect: finding the IMU on the I2C bus
    adduser         # creates the handoff user
    udev            # the rules below
    systemd         # the service
)
GPSD_ADDRESS="127.0.0.1:2947"
USER_NAME="handoff"
USER_HOME="/var/lib/handoff"
# Groups the service uses (handoffd.service's SupplementaryGroups=): gpio for /dev/gpiochip*,
# dialout for serial ports, netdev for wpa_supplicant's control socket.
SERVICE_GROUPS=(gpio dialout netdev)

ROOT="/"
DRY_RUN=0
BINARY=""
BUILD=0
GPS_DEVICE="auto"
STORE_UNIT=0
CONFIGURE_BOOT=0
NO_PACKAGES=0
FORCE=0

say() { printf '%s\n' "$*"; }
note() { printf '    note: %s\n' "$*"; }
warn() { printf 'install.sh: warning: %s\n' "$*" >&2; }
die() {
    printf 'install.sh: %s\n' "$*" >&2
    exit 1
}
usage() { sed -n '2,/^set -euo pipefail$/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case "$1" in
    --binary)
        [ $# -ge 2 ] || die "--binary needs a folder or a tarball"
        BINARY="$2"
        shift 2
        ;;
    --binary=*)
        BINARY="${1#*=}"
        shift
        ;;
    --build)
        BUILD=1
        shift
        ;;
    --gps-device)
        [ $# -ge 2 ] || die "--gps-device needs auto, uart, usb, none or a device path"
        GPS_DEVICE="$2"
        shift 2
        ;;
    --gps-device=*)
        GPS_DEVICE="${1#*=}"
        shift
        ;;
    --store-unit)
        STORE_UNIT=1
        shift
        ;;
    --configure-boot)
        CONFIGURE_BOOT=1
        shift
        ;;
    --no-packages)
        NO_PACKAGES=1
        shift
        ;;
    --root)
        [ $# -ge 2 ] || die "--root needs a folder"
        ROOT="$2"
        shift 2
        ;;
    --root=*)
        ROOT="${1#*=}"
        shift
        ;;
    --dry-run)
        DRY_RUN=1
        shift
        ;;
    --force)
        FORCE=1
        shift
        ;;
    -h | --help)
        usage
        exit 0
        ;;
    *) die "unknown argument '$1' (see --help)" ;;
    esac
done

[ -n "$BINARY" ] || [ "$BUILD" -eq 1 ] || die "say where handoffd comes from: --binary PATH or --build (see --help)"
[ -z "$BINARY" ] || [ "$BUILD" -eq 0 ] || die "--binary and --build are alternatives: give one"
case "$GPS_DEVICE" in
auto | uart | usb | none | /dev/*) ;;
*) die "--gps-device takes auto, uart, usb, none or a path under /dev, not '$GPS_DEVICE'" ;;
esac
[ -d "$ROOT" ] || die "--root $ROOT is not a folder"
ROOT="$(cd "$ROOT" && pwd)"
if [ "$DRY_RUN" -eq 0 ] && [ "$(id -u)" -ne 0 ]; then
    die "run it as root (sudo hw/install.sh …), or look first with --dry-run"
fi

# --- Helpers --------------------------------------------------------------------------------------

# A path inside the target system.
r() {
    if [ "$ROOT" = "/" ]; then printf '%s' "$1"; else printf '%s%s' "$ROOT" "$1"; fi
}

# Runs a command inside the target system.
in_root() {
    if [ "$ROOT" = "/" ]; then "$@"; else chroot "$ROOT" "$@"; fi
}

STEP=0
# act DESCRIPTION COMMAND [ARG…]: one numbered action. --dry-run prints it and the command.
act() {
    local description="$1"
    shift
    if [ "$STEP" -eq 0 ]; then
        if [ "$DRY_RUN" -eq 1 ]; then say "Would do:"; else say "Doing:"; fi
    fi
    STEP=$((STEP + 1))
    if [ "$DRY_RUN" -eq 1 ]; then
        printf '%3d. %s\n' "$STEP" "$description"
    else
        printf '[%d] %s\n' "$STEP" "$description"
    fi
    and_then "$@"
}

# and_then COMMAND [ARG…]: one more command of the action just announced. A command given as
# `in_root CMD…` is shown as what runs: CMD, or `chroot ROOT CMD` with --root.
and_then() {
    if [ "$1" = in_root ]; then
        shift
        [ "$ROOT" = "/" ] || set -- chroot "$ROOT" "$@"
    fi
    if [ "$DRY_RUN" -eq 1 ]; then
        printf '       $'
        printf ' %q' "$@"
        printf '\n'
    else
        "$@"
    fi
}

# Already as wanted: said, not numbered.
already() { printf '  -  %s\n' "$*"; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/handoff-install.XXXXXX")"
MOUNTED=()
cleanup() {
    local i
    for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do umount "${MOUNTED[$i]}" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

# put SOURCE DEST MODE [OWNER:GROUP]: installs a file into the target unless it is there already
# with the same content (and mode).
put() {
    local source="$1" dest="$2" mode="$3" owner="${4:-}"
    local target
    target="$(r "$dest")"
    if [ -f "$target" ] && cmp -s "$source" "$target" &&
        [ "$(stat -c %a "$target")" = "${mode#0}" ]; then
        already "$dest is up to date"
        return 0
    fi
    act "Install $dest (mode $mode${owner:+, $owner})" install -D -m "$mode" "$source" "$target"
    # User and group names are the target's, so chown runs inside it.
    [ -z "$owner" ] || and_then in_root chown "$owner" "$dest"
}

# append_file SOURCE DEST: adds SOURCE's lines at the end of DEST.
append_file() { cat "$1" >>"$2"; }

# The value of KEY in an os-release file.
os_release() {
    sed -n "s/^$1=//p" "$2" | tr -d '"' | head -n 1
}

# Whether a Debian package is installed in the target, read from dpkg's status file (works for
# a target of another architecture, and without chroot).
package_installed() {
    awk -v want="$1" '
        /^Package: / { name = $2 }
        /^Status: / && name == want && $0 ~ /install ok installed/ { found = 1 }
        END { exit found ? 0 : 1 }' "$(r /var/lib/dpkg/status)" 2>/dev/null
}

# The target's Debian architecture (dpkg's own, from its status file).
target_architecture() {
    local arch
    arch="$(awk '/^Package: dpkg$/ { p = 1; next } /^Package: / { p = 0 } p && /^Architecture: / { print $2; exit }' \
        "$(r /var/lib/dpkg/status)" 2>/dev/null || true)"
    if [ -z "$arch" ] && [ "$ROOT" = "/" ] && command -v dpkg >/dev/null; then arch="$(dpkg --print-architecture)"; fi
    printf '%s' "$arch"
}

# The Debian architecture an ELF executable is built for (from its e_machine), or "" if not ELF.
elf_architecture() {
    local magic machine
    magic="$(od -An -tx1 -N4 "$1" 2>/dev/null | tr -d ' \n')"
    [ "$magic" = "7f454c46" ] || return 0
    machine="$(od -An -tx1 -j18 -N2 "$1" | tr -d ' \n')"
    case "$machine" in
    b700) printf arm64 ;;
    3e00) printf amd64 ;;
    2800) printf armhf ;;
    *) printf 'unknown(e_machine %s)' "$machine" ;;
    esac
}

group_exists() { grep -q "^$1:" "$(r /etc/group)" 2>/dev/null; }
user_exists() { grep -q "^$1:" "$(r /etc/passwd)" 2>/dev/null; }
in_group() {
    awk -F: -v g="$2" -v u="$1" '$1 == g { n = split($4, m, ","); for (i = 1; i <= n; i++) if (m[i] == u) found = 1 }
        END { exit found ? 0 : 1 }' "$(r /etc/group)" 2>/dev/null
}

# --- The system -----------------------------------------------------------------------------------

say "Handoff pack install$([ "$DRY_RUN" -eq 1 ] && printf ' (dry run: nothing is changed)')"
say "  system root: $ROOT"

OS_RELEASE="$(r /etc/os-release)"
[ -f "$OS_RELEASE" ] || OS_RELEASE="$(r /usr/lib/os-release)"
[ -f "$OS_RELEASE" ] || die "$ROOT has no etc/os-release: is it a Debian system? (--root names its top folder)"
OS_ID="$(os_release ID "$OS_RELEASE")"
OS_VERSION="$(os_release VERSION_ID "$OS_RELEASE")"
OS_CODENAME="$(os_release VERSION_CODENAME "$OS_RELEASE")"
OS_NAME="$(os_release PRETTY_NAME "$OS_RELEASE")"
ARCH="$(target_architecture)"
say "  system: ${OS_NAME:-unknown} ($ARCH)"
case "$OS_ID:$OS_CODENAME:$OS_VERSION" in
debian:bookworm:* | raspbian:bookworm:* | debian::12 | raspbian::12) ;;
*)
    if [ "$FORCE" -eq 1 ]; then
        warn "this is ${OS_NAME:-an unknown system}, not Debian 12 (bookworm): going on because of --force"
    else
        die "this is ${OS_NAME:-an unknown system}, not Raspberry Pi OS Bookworm / Debian 12: the package names, gpsd's files and systemd's options here are Bookworm's. --force goes on anyway"
    fi
    ;;
esac
case "$ARCH" in
arm64) ;;
amd64)
    # Allowed for another root (an image, this script's own check) and to look (--dry-run); onto
    # this very machine only when meant: a developer's PC is not a pack by accident.
    if [ "$ROOT" = "/" ] && [ "$DRY_RUN" -eq 0 ] && [ "$FORCE" -eq 0 ]; then
        die "this machine is amd64, not a Raspberry Pi: installing the pack's service onto it needs --force (a bench pack); --dry-run and --root DIR work without it"
    fi
    note "an amd64 system, not a Raspberry Pi: fine for a bench pack or an image (--root); the binaries decide"
    ;;
*)
    if [ "$FORCE" -eq 1 ]; then
        warn "architecture '$ARCH': the pack is built for arm64; going on because of --force"
    else
        die "architecture '$ARCH': Swift's Linux toolchains (and so handoffd) are for arm64 (the Pi) and amd64; a 32-bit Raspberry Pi OS cannot run them. Install the 64-bit Raspberry Pi OS, or --force"
    fi
    ;;
esac

MODEL=""
if [ "$ROOT" = "/" ] && [ -r /proc/device-tree/model ]; then MODEL="$(tr -d '\0' </proc/device-tree/model)"; fi
[ -z "$MODEL" ] || say "  board: $MODEL"
# A Raspberry Pi: this one's device tree says so, or (another root) an image with Raspberry Pi
# OS's boot partition. It has the button and LED header: [gpio] is turned on in a new handoff.toml.
IS_PI=0
if [[ "$MODEL" == *"Raspberry Pi"* ]] || { [ "$ROOT" != "/" ] && [ -f "$(r /boot/firmware/config.txt)" ]; }; then IS_PI=1; fi

# --- The binaries ---------------------------------------------------------------------------------

BIN_DIR=""
PRODUCTS=(handoffd handoff)
[ "$STORE_UNIT" -eq 0 ] || PRODUCTS+=(handoff-store)

if [ "$BUILD" -eq 1 ]; then
    if ! command -v swift >/dev/null 2>&1; then
        die "--build needs swift on PATH: install a Swift 6.1 or later toolchain for Linux on arm64 (swiftly, or the Debian 12 aarch64 tarball, from https://www.swift.org/install/linux/), plus libsqlite3-dev libbluetooth-dev libcurl4-openssl-dev; or build elsewhere and use --binary (hw/README.md, \"Building handoffd for the Pi\")"
    fi
    for product in "${PRODUCTS[@]}"; do
        # One product per invocation: swift build takes a single --product.
        act "Build $product (release, Swift runtime linked in)" \
            swift build --package-path "$REPO" -c release --static-swift-stdlib --product "$product"
    done
    BIN_DIR="$REPO/.build/release"
else
    if [ -d "$BINARY" ]; then
        BIN_DIR="$BINARY"
        [ -f "$BIN_DIR/handoffd" ] || [ ! -f "$BIN_DIR/bin/handoffd" ] || BIN_DIR="$BIN_DIR/bin"
    elif [ -f "$BINARY" ]; then
        # Unpacked into a scratch folder of this script's (not the target): only read from there.
        mkdir -p "$WORK/binary"
        tar -xf "$BINARY" -C "$WORK/binary" || die "cannot unpack $BINARY (a .tar, .tar.gz, .tgz or .tar.xz)"
        found="$(find "$WORK/binary" -maxdepth 3 -type f -name handoffd | head -n 1)"
        [ -n "$found" ] || die "$BINARY has no handoffd in it"
        BIN_DIR="$(dirname "$found")"
    else
        die "--binary $BINARY: no such folder or file"
    fi
    BIN_DIR="$(cd "$BIN_DIR" && pwd)"
fi

if [ "$BUILD" -eq 0 ] || [ "$DRY_RUN" -eq 0 ]; then
    for product in "${PRODUCTS[@]}"; do
        file="$BIN_DIR/$product"
        if [ ! -f "$file" ] || [ ! -x "$file" ]; then die "$file is missing or not executable"; fi
        binary_arch="$(elf_architecture "$file")"
        [ -n "$binary_arch" ] || die "$file is not an executable (ELF) file"
        if [ "$binary_arch" != "$ARCH" ]; then
            if [ "$FORCE" -eq 1 ]; then
                warn "$product is built for $binary_arch, the system is $ARCH: going on because of --force"
            else
                die "$product is built for $binary_arch but the system is $ARCH: it cannot run there (build it on an $ARCH machine; --force goes on anyway)"
            fi
        fi
        # A binary built without --static-swift-stdlib needs libswiftCore.so & co. on the Pi.
        if LC_ALL=C grep -q -a 'libswiftCore\.so' "$file"; then
            if [ "$FORCE" -eq 1 ]; then
                warn "$product needs the Swift runtime's shared libraries (built without --static-swift-stdlib): going on because of --force"
            else
                die "$product was built without --static-swift-stdlib: it needs libswiftCore.so and Foundation's shared libraries, which Debian does not have. Rebuild with: swift build -c release --static-swift-stdlib --product $product (--force goes on anyway)"
            fi
        fi
    done
    say "  binaries: $BIN_DIR (${PRODUCTS[*]})"
fi

# --- The GPS receiver -----------------------------------------------------------------------------
# GPS_KIND: uart | usb | device | usb-device | none. gpsd's DEVICES and USBAUTO follow from it, and
# which /etc/udev/rules.d/99-handoff-gps.rules (if any) makes /dev/gps0.

GPS_KIND=""
GPS_PATH=""
GPS_RULE=""
GPS_SAYS=""

ublox_usb() {
    local vendor
    for vendor in /sys/bus/usb/devices/*/idVendor; do
        [ -r "$vendor" ] || continue
        if [ "$(cat "$vendor")" = "1546" ]; then
            printf '%s:%s' "1546" "$(cat "$(dirname "$vendor")/idProduct" 2>/dev/null)"
            return 0
        fi
    done
    return 1
}

case "$GPS_DEVICE" in
auto)
    if [ "$ROOT" != "/" ]; then
        GPS_KIND=none
        GPS_SAYS="no GPS receiver set up: --root is another system, whose devices cannot be seen from here; give --gps-device uart, usb or a device"
    elif usb_id="$(ublox_usb)"; then
        GPS_KIND=usb
        GPS_SAYS="a u-blox USB receiver ($usb_id): /dev/gps0, and gpsd adds it whenever it is plugged in"
    elif [ -e /dev/serial0 ] && [[ "$MODEL" != *"Raspberry Pi 5"* ]]; then
        GPS_KIND=uart
        GPS_SAYS="assuming a receiver on the header's UART (/dev/serial0 -> $(readlink /dev/serial0)): /dev/gps0. No receiver there? Run again with --gps-device none"
    else
        GPS_KIND=none
        if [[ "$MODEL" == *"Raspberry Pi 5"* ]]; then
            GPS_SAYS="no GPS receiver found. On a Pi 5 the header's UART is /dev/ttyAMA0 (dtparam=uart0=on): run again with --gps-device /dev/ttyAMA0"
        else
            GPS_SAYS="no GPS receiver found (no u-blox USB device; /dev/serial0 absent, so the UART is off). gpsd still adds a USB receiver plugged in later; for one on the UART, turn it on (below) and run again with --gps-device uart"
        fi
    fi
    ;;
uart | /dev/serial0)
    GPS_KIND=uart
    GPS_SAYS="the receiver on the header's UART (/dev/serial0): /dev/gps0"
    ;;
usb)
    GPS_KIND=usb
    GPS_SAYS="a u-blox USB receiver: /dev/gps0, and gpsd adds it whenever it is plugged in"
    ;;
none)
    GPS_KIND=none
    GPS_SAYS="no GPS receiver (gpsd still adds a USB one plugged in later)"
    ;;
*)
    GPS_PATH="$GPS_DEVICE"
    resolved="$GPS_PATH"
    if [ "$ROOT" = "/" ] && [ -e "$GPS_PATH" ]; then resolved="$(readlink -f "$GPS_PATH")"; fi
    if [ "$ROOT" = "/" ] && [ ! -e "$GPS_PATH" ]; then
        warn "$GPS_PATH does not exist now; set up anyway (a receiver that is unplugged, or a UART turned on at the next boot)"
    fi
    base="$(basename "$resolved")"
    case "$GPS_PATH:$base" in
    /dev/serial/*:* | *:ttyUSB* | *:ttyACM*)
        # A USB port's ttyUSBn/ttyACMn number is not stable, and gpsd's hotplug rule may know the
        # device too: gpsd opens exactly this path, and hotplug is off so it is not opened twice.
        GPS_KIND=usb-device
        GPS_SAYS="$GPS_PATH, opened by gpsd at start (USBAUTO off, so that gpsd's hotplug does not open it a second time; a by-id path under /dev/serial/by-id/ survives replugging)"
        ;;
    *:tty*)
        GPS_KIND=device
        GPS_RULE="$WORK/99-handoff-gps.rules"
        {
            printf '# /etc/udev/rules.d/99-handoff-gps.rules, written by hw/install.sh --gps-device %s:\n' "$GPS_PATH"
            printf '# /dev/gps0 is the GPS receiver.\n'
            printf 'SUBSYSTEM=="tty", KERNEL=="%s", SYMLINK+="gps0"\n' "$base"
        } >"$GPS_RULE"
        GPS_SAYS="$GPS_PATH ($base): /dev/gps0"
        ;;
    *)
        GPS_KIND=usb-device
        GPS_SAYS="$GPS_PATH, opened by gpsd at start"
        ;;
    esac
    ;;
esac
case "$GPS_KIND" in
uart) GPS_RULE="$HERE/udev/99-handoff-gps-uart.rules" ;;
usb) GPS_RULE="$HERE/udev/99-handoff-gps-usb.rules" ;;
esac
case "$GPS_KIND" in
uart | device) GPSD_DEVICES="/dev/gps0" GPSD_USBAUTO=true ;;
usb | none) GPSD_DEVICES="" GPSD_USBAUTO=true ;;
usb-device) GPSD_DEVICES="$GPS_PATH" GPSD_USBAUTO=false ;;
esac
say "  GPS: $GPS_SAYS"
say "  gpsd: DEVICES=\"$GPSD_DEVICES\" USBAUTO=\"$GPSD_USBAUTO\""

# --- 1. Debian packages ---------------------------------------------------------------------------

say ""
missing=()
for package in "${PACKAGES[@]}"; do package_installed "$package" || missing+=("$package"); done
if [ "$NO_PACKAGES" -eq 1 ]; then
    if [ ${#missing[@]} -gt 0 ]; then
        already "Debian packages: not installing ${missing[*]} (--no-packages)"
    else
        already "Debian packages: all there"
    fi
elif [ ${#missing[@]} -eq 0 ]; then
    already "Debian packages: all there (${PACKAGES[*]})"
else
    if [ "$ROOT" != "/" ] && [ "$DRY_RUN" -eq 0 ]; then
        host_arch="$(dpkg --print-architecture 2>/dev/null || uname -m)"
        [ "$host_arch" = "$ARCH" ] || die "installing packages into an $ARCH root from this $host_arch machine needs qemu-user-static; install them in the image first, then use --no-packages"
        # apt's maintainer scripts want /proc, /sys and /dev in the root.
        for fs in proc sys dev dev/pts; do
            if ! mountpoint -q "$ROOT/$fs"; then
                mkdir -p "$ROOT/$fs"
                mount --bind "/$fs" "$ROOT/$fs"
                MOUNTED+=("$ROOT/$fs")
            fi
        done
    fi
    act "Update the package lists" in_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    act "Install Debian packages: ${missing[*]}" \
        in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# --- 2. The handoff user and its groups -----------------------------------------------------------

for group in "${SERVICE_GROUPS[@]}"; do
    if group_exists "$group"; then
        already "group $group exists"
    else
        act "Create the system group $group" in_root addgroup --system "$group"
    fi
done
if user_exists "$USER_NAME"; then
    already "user $USER_NAME exists"
else
    # Its home is the service's StateDirectory, which systemd creates and owns for it.
    act "Create the system user $USER_NAME (group $USER_NAME, home $USER_HOME, no login shell)" \
        in_root adduser --system --group --home "$USER_HOME" --no-create-home \
        --shell /usr/sbin/nologin --gecos "Handoff pack service" "$USER_NAME"
fi
for group in "${SERVICE_GROUPS[@]}"; do
    if in_group "$USER_NAME" "$group"; then
        already "$USER_NAME is in group $group"
    else
        act "Add $USER_NAME to group $group" in_root adduser --quiet "$USER_NAME" "$group"
    fi
done

# --- 3. The binaries ------------------------------------------------------------------------------

for product in "${PRODUCTS[@]}"; do
    put "$BIN_DIR/$product" "/usr/local/bin/$product" 0755
done
# Every shared library they need is in the system now (ldd runs inside it: same architecture only).
if [ "$DRY_RUN" -eq 0 ] && { [ "$ROOT" = "/" ] || [ "$(dpkg --print-architecture 2>/dev/null)" = "$ARCH" ]; } &&
    [ -x "$(r /usr/bin/ldd)" ]; then
    for product in "${PRODUCTS[@]}"; do
        unresolved="$(in_root ldd "/usr/local/bin/$product" 2>/dev/null | awk '/not found/ { print $1 }' | tr '\n' ' ')"
        [ -z "$unresolved" ] && continue
        if [ "$NO_PACKAGES" -eq 1 ]; then
            warn "/usr/local/bin/$product needs $unresolved(not installed: --no-packages)"
        else
            die "/usr/local/bin/$product needs $unresolved which no installed package provides: was it built with --static-swift-stdlib, on Debian 12?"
        fi
    done
fi

# --- 4. /etc/handoff/handoff.toml -----------------------------------------------------------------

EXAMPLE="$REPO/docs/handoff.example.toml"
[ -f "$EXAMPLE" ] || die "missing $EXAMPLE"
# The example, always current: every key with its default, to compare with the runner's file.
put "$EXAMPLE" /etc/handoff/handoff.example.toml 0644
if [ -e "$(r /etc/handoff/handoff.toml)" ]; then
    already "/etc/handoff/handoff.toml exists: kept as it is (new keys: /etc/handoff/handoff.example.toml)"
    config_source="$(awk '/^\[/ { s = $0 } s == "[gps]" && /^source *=/ { gsub(/.*= *"|".*/, ""); print }' \
        "$(r /etc/handoff/handoff.toml)")"
    if [ "$config_source" = "serial" ] && [ -n "$GPSD_DEVICES" ]; then
        warn "handoff.toml reads the receiver itself ([gps] source = \"serial\") while gpsd is set up to open $GPSD_DEVICES: if that is the same receiver, set source = \"gpsd\" (only one program can read a serial port)"
    fi
else
    # The example with the GPS section pointing at gpsd (its defaults already, stated), and on a
    # Raspberry Pi the button and LED on (docs/pack-controls.md).
    gpio_enabled=false
    [ "$IS_PI" -eq 0 ] || gpio_enabled=true
    sed -e '/^\[gps\]/,/^\[/ s|^source = "[a-z]*"|source = "gpsd"|' \
        -e "/^\[gps\]/,/^\[/ s|^gpsd = \"[^\"]*\"|gpsd = \"$GPSD_ADDRESS\"|" \
        -e "/^\[gpio\]/,/^\[/ s|^enabled = [a-z]*|enabled = $gpio_enabled|" \
        "$EXAMPLE" >"$WORK/handoff.toml"
    say "  handoff.toml: [gps] source = \"gpsd\" at $GPSD_ADDRESS; [gpio] enabled = $gpio_enabled$([ "$IS_PI" -eq 1 ] || printf ' (not a Raspberry Pi)')"
    # Privacy zones (home coordinates) end up here: readable by the service, not by everyone.
    put "$WORK/handoff.toml" /etc/handoff/handoff.toml 0640 "root:$USER_NAME"
fi

# --- 5. udev --------------------------------------------------------------------------------------

put "$HERE/udev/90-handoff.rules" /etc/udev/rules.d/90-handoff.rules 0644
if [ -n "$GPS_RULE" ]; then
    put "$GPS_RULE" /etc/udev/rules.d/99-handoff-gps.rules 0644
elif [ -e "$(r /etc/udev/rules.d/99-handoff-gps.rules)" ]; then
    act "Remove /etc/udev/rules.d/99-handoff-gps.rules (no /dev/gps0 for this receiver)" \
        rm -f "$(r /etc/udev/rules.d/99-handoff-gps.rules)"
fi

# --- 6. gpsd --------------------------------------------------------------------------------------

sed -e "s|^DEVICES=.*|DEVICES=\"$GPSD_DEVICES\"|" -e "s|^USBAUTO=.*|USBAUTO=\"$GPSD_USBAUTO\"|" \
    "$HERE/gpsd.default" >"$WORK/gpsd"
if [ -f "$(r /etc/default/gpsd)" ] && ! cmp -s "$WORK/gpsd" "$(r /etc/default/gpsd)" &&
    [ ! -e "$(r /etc/default/gpsd.handoff-backup)" ]; then
    act "Keep the current /etc/default/gpsd as /etc/default/gpsd.handoff-backup" \
        cp -p "$(r /etc/default/gpsd)" "$(r /etc/default/gpsd.handoff-backup)"
fi
put "$WORK/gpsd" /etc/default/gpsd 0644

# --- 7. systemd units -----------------------------------------------------------------------------

UNIT_DIR=/usr/local/lib/systemd/system
put "$HERE/systemd/handoffd.service" "$UNIT_DIR/handoffd.service" 0644
if [ "$STORE_UNIT" -eq 1 ]; then
    put "$HERE/systemd/handoff-store.service" "$UNIT_DIR/handoff-store.service" 0644
    if [ -e "$(r /etc/default/handoff-store)" ]; then
        already "/etc/default/handoff-store exists: kept as it is"
    else
        put "$HERE/systemd/handoff-store.env" /etc/default/handoff-store 0600
    fi
fi

SYSTEMD_RUNNING=0
if [ "$ROOT" = "/" ] && [ -d /run/systemd/system ]; then SYSTEMD_RUNNING=1; fi
systemctl_target() {
    if [ "$SYSTEMD_RUNNING" -eq 1 ]; then systemctl "$@"; else systemctl --root="$ROOT" "$@"; fi
}
if [ "$SYSTEMD_RUNNING" -eq 1 ]; then
    act "Reload systemd's units" systemctl daemon-reload
fi
to_enable=()
for unit in handoffd.service gpsd.socket gpsd.service; do
    if [ "$DRY_RUN" -eq 0 ] && [ "$unit" != handoffd.service ] &&
        [ ! -e "$(r "/lib/systemd/system/$unit")" ] && [ ! -e "$(r "/usr/lib/systemd/system/$unit")" ]; then
        warn "$unit is not installed (gpsd missing, --no-packages?): not enabled"
        continue
    fi
    if [ "$(systemctl_target is-enabled "$unit" 2>/dev/null || true)" = "enabled" ]; then
        already "$unit is enabled"
    else
        to_enable+=("$unit")
    fi
done
if [ ${#to_enable[@]} -gt 0 ]; then
    # gpsd.service too, not only its socket: with -n it keeps the fix warm from boot on.
    if [ "$SYSTEMD_RUNNING" -eq 1 ]; then
        act "Enable ${to_enable[*]} at boot" systemctl enable --quiet "${to_enable[@]}"
    else
        act "Enable ${to_enable[*]} at boot" systemctl --root="$ROOT" enable --quiet "${to_enable[@]}"
    fi
fi
[ "$STORE_UNIT" -eq 0 ] || already "handoff-store.service stays disabled: set /etc/default/handoff-store, then systemctl enable --now handoff-store"

# --- 8. Apply now (only on the running system) ----------------------------------------------------

if [ "$ROOT" = "/" ] && command -v udevadm >/dev/null && [ -S /run/udev/control ]; then
    act "Reload udev's rules" udevadm control --reload
    act "Apply them to the devices present (IIO, GPIO, serial ports)" \
        udevadm trigger --action=add --subsystem-match=iio --subsystem-match=gpio --subsystem-match=tty
    [ "$DRY_RUN" -eq 1 ] || udevadm settle --timeout=10 || true
else
    already "udev: the rules apply from the next boot (not the running system, or no udevd)"
fi
if [ "$SYSTEMD_RUNNING" -eq 1 ]; then
    if [ "$DRY_RUN" -eq 1 ] || [ -e /lib/systemd/system/gpsd.service ]; then
        act "Restart gpsd with its new settings" systemctl restart gpsd.socket gpsd.service
    fi
    act "(Re)start handoffd" systemctl restart handoffd.service
fi

# --- 9. Boot settings (Raspberry Pi) --------------------------------------------------------------

BOOT_CONFIG=""
for candidate in /boot/firmware/config.txt /boot/config.txt; do
    if [ -f "$(r "$candidate")" ]; then
        BOOT_CONFIG="$candidate"
        break
    fi
done
boot_lines=()
cmdline_fix=0
if [ -n "$BOOT_CONFIG" ]; then
    BOOT_CMDLINE="$(dirname "$BOOT_CONFIG")/cmdline.txt"
    config_file="$(r "$BOOT_CONFIG")"
    if [ "$GPS_KIND" = uart ] && ! grep -Eq '^[[:space:]]*enable_uart=1' "$config_file"; then
        boot_lines+=("enable_uart=1")
    fi
    if ! grep -Eq '^[[:space:]]*dtparam=([^#]*,)?i2c(_arm)?=on' "$config_file"; then
        boot_lines+=("dtparam=i2c_arm=on")
    fi
    if [ "$GPS_KIND" = uart ] && [ -f "$(r "$BOOT_CMDLINE")" ] &&
        grep -Eq 'console=(serial0|ttyS0|ttyAMA0)' "$(r "$BOOT_CMDLINE")"; then
        cmdline_fix=1
    fi
    if [ ${#boot_lines[@]} -gt 0 ] || [ "$cmdline_fix" -eq 1 ]; then
        if [ "$CONFIGURE_BOOT" -eq 1 ]; then
            if [ ${#boot_lines[@]} -gt 0 ]; then
                [ -e "$config_file.handoff-backup" ] ||
                    act "Keep $BOOT_CONFIG as $BOOT_CONFIG.handoff-backup" cp -p "$config_file" "$config_file.handoff-backup"
                printf '\n[all]\n# Handoff pack (hw/install.sh)\n' >"$WORK/boot-lines"
                printf '%s\n' "${boot_lines[@]}" >>"$WORK/boot-lines"
                act "Add to $BOOT_CONFIG: ${boot_lines[*]}" append_file "$WORK/boot-lines" "$config_file"
            fi
            if [ "$cmdline_fix" -eq 1 ]; then
                cmdline_file="$(r "$BOOT_CMDLINE")"
                [ -e "$cmdline_file.handoff-backup" ] ||
                    act "Keep $BOOT_CMDLINE as $BOOT_CMDLINE.handoff-backup" cp -p "$cmdline_file" "$cmdline_file.handoff-backup"
                act "Take the serial console off $BOOT_CMDLINE (it would talk over the GPS line)" \
                    sed -E -i 's/console=(serial0|ttyS0|ttyAMA0),[0-9]+ *//' "$cmdline_file"
            fi
        fi
    else
        already "$BOOT_CONFIG: the UART and I2C settings are there"
    fi
fi

# --- Done -----------------------------------------------------------------------------------------

say ""
if [ "$DRY_RUN" -eq 1 ]; then
    say "Dry run: $STEP actions listed, nothing changed."
else
    say "Done ($STEP actions)."
fi
if [ -n "$BOOT_CONFIG" ] && [ "$CONFIGURE_BOOT" -eq 0 ] && { [ ${#boot_lines[@]} -gt 0 ] || [ "$cmdline_fix" -eq 1 ]; }; then
    say ""
    say "Boot settings this pack still needs (hw/README.md, section 3), then reboot:"
    if [ ${#boot_lines[@]} -gt 0 ]; then
        say "  append to $BOOT_CONFIG, under [all]:"
        for line in "${boot_lines[@]}"; do say "      $line"; done
    fi
    [ "$cmdline_fix" -eq 0 ] || say "  remove console=serial0,115200 from $BOOT_CMDLINE (the console would talk over the GPS line)"
    say "  the same with raspi-config:$([ "$cmdline_fix" -eq 1 ] && printf ' sudo raspi-config nonint do_serial_cons 1;')$([ "$GPS_KIND" = uart ] && printf ' sudo raspi-config nonint do_serial_hw 0;') sudo raspi-config nonint do_i2c 0"
    say "  and the IMU's overlay, e.g. dtoverlay=i2c-sensor,mpu6050,int_pin=4 (hw/README.md, 3.3)"
    say "  or run this script again with --configure-boot (it keeps a .handoff-backup of each file)"
fi
cat <<EOF

Next:
  sudo usermod -aG $USER_NAME \$USER   # use the handoff CLI without sudo (then log in again)
  handoff doctor                   # checks the whole pack and says what to fix
  handoff scan                     # the Bluetooth sensors around (wear the strap)
  handoff pair ADDRESS             # remember one; handoffd keeps it connected
  journalctl -u handoffd -f        # the service's log
Settings: /etc/handoff/handoff.toml (docs/configuration.md); then sudo systemctl restart handoffd
EOF
