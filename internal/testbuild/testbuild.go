// Package testbuild builds the WebAssembly modules that tests load: Go
// plugins with the standard toolchain, WAT with wat2wasm. Builds are cached
// on disk by a hash of everything that goes into them, so the many test
// binaries of one `go test ./...` (and the next run) build each plugin once.
package testbuild

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/airlock-mcp/airlock/internal/pluginbuild"
)

// SkipEnv, set to 1, turns a missing toolchain into a skip instead of a
// failure. CI never sets it: there every toolchain is installed.
const SkipEnv = "AIRLOCK_SKIP_MISSING_TOOLCHAINS"

var (
	rootOnce sync.Once
	root     string
	rootErr  error
	locks    sync.Map // cache path -> *sync.Mutex, against duplicate builds in one binary
)

// ModuleRoot returns the directory of this module's go.mod.
func ModuleRoot(tb testing.TB) string {
	tb.Helper()
	rootOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			rootErr = fmt.Errorf("go env GOMOD: %w", err)
			return
		}
		root = filepath.Dir(strings.TrimSpace(string(out)))
	})
	if rootErr != nil {
		tb.Fatal(rootErr)
	}
	return root
}

// CacheDir is where built modules are kept.
func CacheDir() string {
	if d := os.Getenv("AIRLOCK_TESTBUILD_CACHE"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "airlock-testbuild")
}

// GoPlugin builds the main package at pkg (a path relative to the module
// root, such as "plugins/secrets") as a WASI reactor and returns the path of
// the .wasm file.
func GoPlugin(tb testing.TB, pkg string) string {
	tb.Helper()
	rootDir := ModuleRoot(tb)
	dir := filepath.Join(rootDir, pkg)
	key, err := pluginbuild.InputsHash(dir)
	if err != nil {
		tb.Fatalf("testbuild: hashing the inputs of %s: %v", pkg, err)
	}
	return cached(tb, strings.ReplaceAll(pkg, "/", "_")+"-"+key+".wasm", func(out string) error {
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-o", out, ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOFLAGS=-buildvcs=false")
		if msg, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s (GOOS=wasip1 GOARCH=wasm -buildmode=c-shared): %v\n%s", pkg, err, msg)
		}
		return nil
	})
}

// WAT compiles WebAssembly text with wat2wasm (Debian package wabt) and
// returns the module's bytes.
func WAT(tb testing.TB, src string) []byte {
	tb.Helper()
	tool := Tool(tb, "wat2wasm", "wabt")
	sum := sha256.Sum256([]byte(src))
	path := cached(tb, "wat-"+hex.EncodeToString(sum[:12])+".wasm", func(out string) error {
		in := out + ".wat"
		if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
			return err
		}
		defer os.Remove(in)
		if msg, err := exec.Command(tool, in, "-o", out).CombinedOutput(); err != nil {
			return fmt.Errorf("wat2wasm: %v\n%s", err, msg)
		}
		return nil
	})
	bin, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return bin
}

// Tool finds a command the tests need, or fails the test naming the Debian
// package to install (skips instead when SkipEnv=1).
func Tool(tb testing.TB, name, debPackage string) string {
	tb.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	msg := fmt.Sprintf("%s not found: install the Debian package %s (apt-get install -y %s, or scripts/install-deps)", name, debPackage, debPackage)
	if os.Getenv(SkipEnv) == "1" {
		tb.Skip(msg + "; skipped because " + SkipEnv + "=1")
	}
	tb.Fatal(msg + "; set " + SkipEnv + "=1 to skip instead")
	return ""
}

// cached returns CacheDir()/name, running build(tmp) to make it when it is
// missing. The result is renamed into place, so concurrent test binaries
// never see half a file.
func cached(tb testing.TB, name string, build func(out string) error) string {
	tb.Helper()
	dir := CacheDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(dir, name)
	mu, _ := locks.LoadOrStore(path, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	if _, err := os.Stat(path); err == nil {
		return path
	}
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	if err := build(tmp); err != nil {
		os.Remove(tmp)
		tb.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		tb.Fatal(err)
	}
	return path
}
