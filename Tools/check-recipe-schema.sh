#!/usr/bin/env bash
# Validates recipe.schema.json with an independent validator (Python's jsonschema, from
# PyPI): the schema is a valid draft 2020-12 schema, equals `cellmotion recipe-schema`,
# every preset's `cellmotion recipe-template` (and `--scroll-effect`) satisfies it, and
# known-bad files do not.
# (The Swift tests check the same with their own small validator.) Skips, saying so, when
# jsonschema cannot be installed.
#   bash Tools/check-recipe-schema.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if ! python3 -c "import jsonschema" 2>/dev/null; then
  python3 -m pip install --quiet jsonschema 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages jsonschema 2>/dev/null || true
fi
if ! python3 -c "import jsonschema" 2>/dev/null; then
  echo "check-recipe-schema: skipped (Python's jsonschema is not available)"
  exit 0
fi
swift build --product cellmotion
bin="$(swift build --show-bin-path)/cellmotion"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$bin" recipe-schema -o "$tmp/generated.json"
cmp -s "$tmp/generated.json" Sources/CellMotion/Recipe/recipe.schema.json \
  || { echo "check-recipe-schema: recipe.schema.json differs from 'cellmotion recipe-schema'" >&2; exit 1; }
# Every preset: the names the CLI lists when asked for an unknown one.
presets="$("$bin" recipe-template no-such-preset 2>&1 | sed -n 's/.*(known: \(.*\))$/\1/p' | tr -d ',' || true)"
[ "$(echo "$presets" | wc -w)" -ge 12 ] || { echo "check-recipe-schema: cannot list the presets" >&2; exit 1; }
for p in $presets; do "$bin" recipe-template "$p" -o "$tmp/$p.json"; done
# Every scroll effect preset's file (a recipe with a "scroll" object), read back by render.
for e in reveal edgeFadeScale coverFlow wheelPicker carouselKeylines parallaxContent; do
  "$bin" recipe-template --scroll-effect "$e" -o "$tmp/effect-$e.json"
done
python3 - "$tmp" <<'PY'
import glob, json, sys
import jsonschema
schema = json.load(open("Sources/CellMotion/Recipe/recipe.schema.json"))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
files = sorted(f for f in glob.glob(sys.argv[1] + "/*.json") if not f.endswith("generated.json"))
bad = 0
for f in files:
    errors = [e.message for e in v.iter_errors(json.load(open(f)))]
    if errors:
        bad += 1
        print(f"check-recipe-schema: {f}: {errors}", file=sys.stderr)
for wrong in [{"channels": []}, {"name": "x", "curv": 1},
              {"name": "x", "channels": [{"channel": "opacity", "from": 0, "to": 1, "curve": "easeSideways", "duration": 1}]},
              {"name": "x", "channels": [{"channel": "wobble", "from": 0, "to": 1, "curve": "easeIn", "duration": 1}]},
              # Keyframes: with from as well, with neither form, both keyframe forms at once.
              {"name": "x", "channels": [{"channel": "opacity", "from": 0, "keyframes": {"values": [0, 1]}, "duration": 1}]},
              {"name": "x", "channels": [{"channel": "opacity", "curve": "linear", "duration": 1}]},
              {"name": "x", "channels": [{"channel": "opacity", "duration": 1,
                                          "keyframes": {"values": [0, 1], "initial": 0, "relative": []}}]},
              {"name": "x", "channels": [{"channel": "opacity", "duration": 1,
                                          "keyframes": {"values": [0, 1], "calculationMode": "spline"}}]},
              # Scroll effects: an unknown timeline kind, two kinds at once, an unknown fill.
              {"name": "x", "scroll": {"timeline": {"spiral": {}}}},
              {"name": "x", "scroll": {"timeline": {"view": {}, "scroll": {}}}},
              {"name": "x", "scroll": {"timeline": {"view": {}}, "fill": "sometimes"}}]:
    if v.is_valid(wrong):
        bad += 1
        print(f"check-recipe-schema: accepted {wrong}", file=sys.stderr)
print(f"check-recipe-schema: {len(files)} presets and scroll effects valid, 11 bad files refused" if not bad else "check-recipe-schema: FAILED")
sys.exit(1 if bad else 0)
PY
