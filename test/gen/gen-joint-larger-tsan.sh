#!/usr/bin/env bash
# gen-joint-larger under ThreadSanitizer (see there).
exec "$(dirname "$0")/gen-joint-larger.sh" "$@" tsan
