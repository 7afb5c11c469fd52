#!/usr/bin/env bash
# Builds the cellmotion CLI, renders the tip-in card, the bounce spring, the shake and its
# keyframes, a retargeted spring, a batch update, three scroll effects, and writes eleven PNGs
# into Tools/images/:
#   tipin-contact-sheet.png  the SVG contact sheet of `cellmotion render` (rsvg-convert,
#                            or headless Chromium when rsvg-convert is missing)
#   bounce-spring-curve.png  `cellmotion curve` (the moveUpBounce spring)
#   html-player-t0.2.png     the HTML player opened in headless Chromium at #t=0.2
#   shake-contact-sheet.png  `cellmotion render shake` (keyframed translation x)
#   shake-keyframes-curve.png  `cellmotion curve shake` (the keyframe track, keys marked)
#   retarget-spring-curve.png  `cellmotion curve spring --retarget` (a spring retargeted
#                            mid-flight, its velocity carried)
#   update-contact-sheet.png a batch update (insert, delete, move, reload) in `render`
#   html-player-update.png   its HTML player paused mid-update
#   coverflow-contact-sheet.png, wheel-contact-sheet.png  `render --scroll-effect` through a
#                            fling (a vertical cover flow; a wheel picker)
#   coverflow-horizontal-contact-sheet.png  the cover flow on a horizontal table (--axis)
# Needs Debian's `chromium` (and optionally `librsvg2-bin`); installs them with apt-get
# when missing and running as root.
#
# Usage: Tools/screenshot.sh [--scratch-path DIR]   (from anywhere; default scratch .build)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
scratch="$root/.build"
if [[ "${1:-}" == "--scratch-path" ]]; then scratch="$2"; fi
images="$root/Tools/images"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if ! command -v chromium >/dev/null; then
  if [[ $(id -u) -eq 0 ]]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium librsvg2-bin >/dev/null
  else
    echo "screenshot.sh: chromium is missing (apt-get install chromium librsvg2-bin)" >&2
    exit 1
  fi
fi

cd "$root"
swift build --scratch-path "$scratch" --product cellmotion >&2
cli="$scratch/debug/cellmotion"
mkdir -p "$images"

# 1. The tip-in contact sheet (12 thumbnails over 0.4 s; the first ones tilted and faded).
"$cli" render tipIn --output "$work" --basename tipin
shot_svg() {  # <svg> <png> <width> <height>
  if command -v rsvg-convert >/dev/null; then
    rsvg-convert --background-color=white -o "$2" "$1"
  else
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
      --screenshot="$2" --window-size="$3,$4" "file://$1" 2>/dev/null
  fi
}
size() { sed -n 's/.*<svg[^>]* width="\([0-9.]*\)" height="\([0-9.]*\)".*/\1 \2/p' "$1" | head -1; }
read -r w h < <(size "$work/tipin.svg")
shot_svg "$work/tipin.svg" "$images/tipin-contact-sheet.png" "${w%.*}" "${h%.*}"

# 2. The moveUpBounce spring: value and velocity, settling time marked.
"$cli" curve moveUpBounce --output "$work/bounce.svg"
read -r w h < <(size "$work/bounce.svg")
shot_svg "$work/bounce.svg" "$images/bounce-spring-curve.png" "${w%.*}" "${h%.*}"

# 3. The HTML player paused at t = 0.2 s (mid-animation: cells tilted and faded).
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=2000 \
  --screenshot="$images/html-player-t0.2.png" --window-size=420,760 "file://$work/tipin.html#t=0.2" 2>/dev/null

# 4. The shake: a keyframed translation x, its frames and its track.
"$cli" render shake --output "$work" --basename shake
read -r w h < <(size "$work/shake.svg")
shot_svg "$work/shake.svg" "$images/shake-contact-sheet.png" "${w%.*}" "${h%.*}"
"$cli" curve shake --output "$work/shake-curve.svg"
read -r w h < <(size "$work/shake-curve.svg")
shot_svg "$work/shake-curve.svg" "$images/shake-keyframes-curve.png" "${w%.*}" "${h%.*}"
# 5. A spring retargeted mid-flight (carry velocity): position and velocity continuous.
"$cli" curve spring --damping-ratio 0.5 --duration 0.9 --retarget 0.12:-0.4 --output "$work/retarget.svg"
read -r w h < <(size "$work/retarget.svg")
shot_svg "$work/retarget.svg" "$images/retarget-spring-curve.png" "${w%.*}" "${h%.*}"

# 6. A batch update (insert, delete, move and reload at once) and the player mid-update.
"$cli" render fadeIn --rule screenful --insert 2-3@0.6 --delete 6@0.6 --move 0:7@0.6 --reload 4@0.6 \
  --row-animation right --sheet-from 0.6 --thumbnails 8 --output "$work" --basename update
read -r w h < <(size "$work/update.svg")
shot_svg "$work/update.svg" "$images/update-contact-sheet.png" "${w%.*}" "${h%.*}"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=2000 \
  --screenshot="$images/html-player-update.png" --window-size=420,760 "file://$work/update.html#t=0.72" 2>/dev/null

# 7. Scroll effects through a fling: a vertical cover flow and a wheel picker.
"$cli" render fadeIn --scroll-effect coverFlow --scroll fling --velocity 1500 --rows 60 --row-height 100 \
  --width 300 --viewport-height 600 --sheet-from 0.5 --thumbnails 8 --output "$work" --basename coverflow
read -r w h < <(size "$work/coverflow.svg")
shot_svg "$work/coverflow.svg" "$images/coverflow-contact-sheet.png" "${w%.*}" "${h%.*}"
"$cli" render fadeIn --scroll-effect wheelPicker --scroll fling --velocity 1200 --rows 60 --row-height 44 \
  --width 300 --viewport-height 400 --sheet-from 0.5 --thumbnails 8 --output "$work" --basename wheel
read -r w h < <(size "$work/wheel.svg")
shot_svg "$work/wheel.svg" "$images/wheel-contact-sheet.png" "${w%.*}" "${h%.*}"
"$cli" render fadeIn --axis horizontal --scroll-effect coverFlow --scroll fling --velocity 1500 --rows 60 \
  --row-height 100 --width 160 --viewport-height 560 --sheet-from 0.4 --duration 1.6 --thumbnails 6 --columns 2 \
  --scale 0.75 --output "$work" --basename coverflow-h
read -r w h < <(size "$work/coverflow-h.svg")
shot_svg "$work/coverflow-h.svg" "$images/coverflow-horizontal-contact-sheet.png" "${w%.*}" "${h%.*}"

ls -l "$images"/*.png
