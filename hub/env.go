package hub

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/factreasoner/factreasoner-go/internal/safefile"
)

// The environment variables of Hugging Face's own tools (huggingface_hub's
// constants and utils/_auth.py) that the client honours.
const (
	EnvEndpoint  = "HF_ENDPOINT"    // the hub's root URL
	EnvToken     = "HF_TOKEN"       // an access token
	EnvTokenPath = "HF_TOKEN_PATH"  // the token file, instead of $HF_HOME/token
	EnvHome      = "HF_HOME"        // Hugging Face's home directory
	EnvOffline   = "HF_HUB_OFFLINE" // 1, ON, YES or TRUE: no request to the hub

	// envTokenLegacy is the older name of HF_TOKEN, still read after it.
	envTokenLegacy = "HUGGING_FACE_HUB_TOKEN"
	// envTransformersOffline also makes huggingface_hub offline.
	envTransformersOffline = "TRANSFORMERS_OFFLINE"
)

// maxTokenFile bounds the token file read: a token is tens of bytes.
const maxTokenFile = 64 << 10

// Home is Hugging Face's home directory, where `hf auth login` keeps the
// token: $HF_HOME, else $XDG_CACHE_HOME/huggingface, else
// ~/.cache/huggingface. "" when none can be found.
func Home() string {
	if h := os.Getenv(EnvHome); h != "" {
		return expandHome(h)
	}
	if x := os.Getenv("XDG_CACHE_HOME"); x != "" {
		return filepath.Join(x, "huggingface")
	}
	if u, err := os.UserHomeDir(); err == nil {
		return filepath.Join(u, ".cache", "huggingface")
	}
	return ""
}

// expandHome expands a leading ~, as Python's os.path.expanduser does.
func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if u, err := os.UserHomeDir(); err == nil {
			return filepath.Join(u, p[1:])
		}
	}
	return p
}

// TokenPath is the token file: $HF_TOKEN_PATH, else Home()/token.
func TokenPath() string {
	if p := os.Getenv(EnvTokenPath); p != "" {
		return expandHome(p)
	}
	if h := Home(); h != "" {
		return filepath.Join(h, "token")
	}
	return ""
}

// Token finds the access token as huggingface_hub does: $HF_TOKEN (or the
// older $HUGGING_FACE_HUB_TOKEN), else the content of the token file
// (TokenPath) that `hf auth login` writes. Line breaks and surrounding
// spaces are removed, and an empty value counts as none. source says where
// the token came from ("HF_TOKEN", or the file), for messages; it is empty
// when there is no token. A token file that exists but cannot be read is
// an error.
func Token() (token, source string, err error) {
	for _, name := range []string{EnvToken, envTokenLegacy} {
		if t := cleanToken(os.Getenv(name)); t != "" {
			return t, "$" + name, nil
		}
	}
	p := TokenPath()
	if p == "" {
		return "", "", nil
	}
	data, err := safefile.ReadFile(p, "hub token file", maxTokenFile)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", nil
	}
	if err != nil {
		return "", "", err
	}
	if t := cleanToken(string(data)); t != "" {
		return t, p, nil
	}
	return "", "", nil
}

// cleanToken is huggingface_hub's _clean_token.
func cleanToken(t string) string {
	t = strings.NewReplacer("\r", "", "\n", "").Replace(t)
	return strings.TrimSpace(t)
}

// Offline reports whether HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE) asks
// for no request to the hub, as huggingface_hub reads them: 1, ON, YES or
// TRUE, in any case.
func Offline() bool {
	v := os.Getenv(EnvOffline)
	if v == "" {
		v = os.Getenv(envTransformersOffline)
	}
	switch strings.ToUpper(v) {
	case "1", "ON", "YES", "TRUE":
		return true
	}
	return false
}
