#!/usr/bin/env bash
# gen-joint-cores under ThreadSanitizer: its split run only (see there).
exec "$(dirname "$0")/gen-joint-cores.sh" "$@" tsan
