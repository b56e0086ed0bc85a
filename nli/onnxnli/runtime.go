package onnxnli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/factreasoner/factreasoner-go/internal/cachedir"
	"github.com/factreasoner/factreasoner-go/nli/crossenc"
)

// RuntimeVersion is the ONNX Runtime release whose C API the binding is
// built against (github.com/yalue/onnxruntime_go v1.27.0 ships its headers)
// and that scripts/install-onnxruntime installs. A newer library works too:
// ONNX Runtime keeps older API versions.
const RuntimeVersion = "1.24.1"

// LibraryEnvVar names the ONNX Runtime shared library to load.
const LibraryEnvVar = "ONNXRUNTIME_LIB"

// libraryName is the file name of the library that onnxruntime-node ships
// for this platform.
func libraryName() string {
	if runtime.GOOS == "darwin" {
		return "libonnxruntime." + RuntimeVersion + ".dylib"
	}
	return "libonnxruntime.so.1"
}

// DefaultLibraryPath is where scripts/install-onnxruntime puts the library:
// onnxruntime/<version>/ in the tool's cache directory.
func DefaultLibraryPath() (string, error) {
	d, err := cachedir.Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "onnxruntime", RuntimeVersion, libraryName()), nil
}

// FindLibrary returns the ONNX Runtime shared library to load: path when it
// is not empty (a flag), else $ONNXRUNTIME_LIB, else the installed copy in
// the cache directory. The error says how to get one.
func FindLibrary(path string) (string, error) {
	source := "the path given"
	if path == "" {
		path, source = os.Getenv(LibraryEnvVar), "$"+LibraryEnvVar
	}
	if path != "" {
		if _, err := os.Stat(path); err != nil {
			return "", fmt.Errorf("ONNX Runtime library %s (from %s): %w", path, source, err)
		}
		return path, nil
	}
	def, err := DefaultLibraryPath()
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(def); err != nil {
		return "", fmt.Errorf("ONNX Runtime library not found: looked for %s (no path given (onnxnli.Options.Library), nor $%s). "+
			"Install it with scripts/install-onnxruntime (it fetches libonnxruntime from the npm package onnxruntime-node@%s "+
			"and checks its sha256), or point $%s at a libonnxruntime of version %s or later",
			def, LibraryEnvVar, RuntimeVersion, LibraryEnvVar, RuntimeVersion)
	}
	return def, nil
}

// The ONNX Runtime environment is process-wide: the binding keeps it in
// package variables and can load one library per process. ortState records
// which library was loaded so that a second request for another one fails
// clearly instead of silently using the first.
var ortState struct {
	sync.Mutex
	path string
	err  error
}

// initRuntime loads the library at path and creates the ONNX Runtime
// environment, once per process.
func initRuntime(path string) error {
	ortState.Lock()
	defer ortState.Unlock()
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if ortState.path != "" {
		if ortState.path != abs {
			return fmt.Errorf("ONNX Runtime is already loaded from %s; one process loads one library (asked for %s)", ortState.path, abs)
		}
		return ortState.err
	}
	ortState.path = abs
	ort.SetSharedLibraryPath(abs)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		ortState.err = fmt.Errorf("loading ONNX Runtime from %s: %w (the library must be ONNX Runtime %s or later, built for this platform; scripts/install-onnxruntime installs one)",
			abs, err, RuntimeVersion)
		return ortState.err
	}
	return nil
}

// errNotMNLI marks a model whose outputs or labels are not the three NLI
// ones.
var errNotMNLI = crossenc.ErrNotMNLI
