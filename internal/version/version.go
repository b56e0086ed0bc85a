// Package version is the program's version: the one source of the number
// that `fr --version` prints and that every HTTP client sends in its
// User-Agent header.
package version

import (
	"runtime/debug"
	"strings"
)

// Fallback is the version of a build that carries none: a test binary, or
// a build from a source tree without version control information. Raise it
// with each release.
const Fallback = "0.1.0-dev"

// Name is the program's name in User-Agent headers.
const Name = "factreasoner-go"

// String returns the version: the main module's version as the go command
// recorded it (v1.2.3 from `go install …@v1.2.3`, or a pseudo-version
// built from the VCS commit), without its leading "v"; Fallback when the
// build recorded none.
func String() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Fallback
	}
	return fromBuild(info.Main.Version)
}

// fromBuild reads a main module version as debug.BuildInfo reports it.
func fromBuild(v string) string {
	if v == "" || v == "(devel)" {
		return Fallback
	}
	return strings.TrimPrefix(v, "v")
}

// UserAgent is the product token every HTTP client of the tool sends:
// "factreasoner-go/VERSION".
func UserAgent() string {
	return Name + "/" + String()
}
