#!/usr/bin/env bash
# The steps of deploy/Dockerfile as plain shell commands (Docker cannot run everywhere the tests
# do): copy the build context, `npm ci`, build, pack; then, in a second directory, unpack the
# tarball and install its production dependencies only. Prints the install directory (the
# runtime image's /app) as the last line of stdout; the tarball sits beside it.
#
#   deploy/service-steps.sh [OUT_DIR]    OUT_DIR defaults to a new temporary directory
#
# Progress goes to stderr. Exits non-zero if any step fails or a dev tool ends up installed.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$(mktemp -d "${TMPDIR:-/tmp}/rsc-service-XXXXXX")}"
build="$out/build"
app="$out/app"
npm_flags=(--prefer-offline --no-audit --no-fund --loglevel=error)
step() { printf '== %s\n' "$*" >&2; }

# Build context: the working tree's tracked and not-ignored files, uncommitted edits included
# (what `docker build .` sends, minus what deploy/Dockerfile.dockerignore leaves out).
step "copy build context into $build"
mkdir -p "$build" "$app"
(
  cd "$repo"
  git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf -
) | tar -xf - -C "$build"

# Build stage: RUN npm ci && npm run build && npm pack --ignore-scripts
step "build stage: npm ci, build, pack"
(
  cd "$build"
  npm ci "${npm_flags[@]}" >&2
  npm run build >&2
  # The build just ran; --ignore-scripts keeps prepack from building a second time.
  npm pack --ignore-scripts --pack-destination "$out" "${npm_flags[@]}" >&2
)
tarball="$(ls "$out"/*.tgz)"

# Runtime stage: the packed files plus the lockfile, production dependencies only.
step "runtime stage: unpack $(basename "$tarball"), npm ci --omit=dev"
tar -xzf "$tarball" -C "$app" --strip-components=1
cp "$build/package-lock.json" "$app/"
(cd "$app" && npm ci --omit=dev --ignore-scripts "${npm_flags[@]}" >&2)

step "check: no dev tooling in the runtime install"
for dev in .bin/tsx .bin/tsc .bin/vitest .bin/wrangler tsx typescript vitest wrangler @biomejs; do
  if [ -e "$app/node_modules/$dev" ]; then
    echo "dev dependency installed in the runtime image: node_modules/$dev" >&2
    exit 1
  fi
done
[ -f "$app/dist/node/start.js" ] || { echo "missing dist/node/start.js" >&2; exit 1; }

printf '%s\n' "$app"
