package pluginbuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// InputsHash hashes everything a build of the plugin at dir depends on
// within its module: the Go version, go.mod and go.sum, and every file of
// every package of the module the plugin imports (its own included). Equal
// hashes mean the build would produce the same module.
func InputsHash(dir string) (string, error) {
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.Dir}}{{end}}", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return "", fmt.Errorf("go list in %s: %v\n%s", dir, err, ee.Stderr)
		}
		return "", fmt.Errorf("go list in %s: %w (is Go installed?)", dir, err)
	}
	modOut, err := exec.Command("go", "-C", dir, "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD in %s: %w", dir, err)
	}
	root := filepath.Dir(strings.TrimSpace(string(modOut)))
	var dirs []string
	for _, d := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if d != "" && strings.HasPrefix(d, root) {
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	h := sha256.New()
	fmt.Fprintln(h, runtime.Version())
	for _, f := range []string{"go.mod", "go.sum"} {
		if err := hashFile(h, filepath.Join(root, f)); err != nil {
			return "", err
		}
	}
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			return "", err
		}
		for _, e := range entries {
			if e.IsDir() {
				continue
			}
			rel, _ := filepath.Rel(root, filepath.Join(d, e.Name()))
			fmt.Fprintln(h, rel)
			if err := hashFile(h, filepath.Join(d, e.Name())); err != nil {
				return "", err
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:12]), nil
}

func hashFile(h io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(h, f)
	return err
}

// Cached returns the path of the plugin at dir built into cacheDir, building
// it only when its inputs changed since the last build (see InputsHash).
// progress, when not nil, hears about a build.
func Cached(ctx context.Context, dir, cacheDir string, progress io.Writer) (path string, built bool, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false, err
	}
	key, err := InputsHash(abs)
	if err != nil {
		return "", false, err
	}
	path = filepath.Join(cacheDir, filepath.Base(abs)+"-"+key+".wasm")
	if _, err := os.Stat(path); err == nil {
		return path, false, nil
	}
	if _, err := Build(ctx, Options{Dir: abs, Out: path, Progress: progress, NoLoad: true}); err != nil {
		return "", false, err
	}
	return path, true, nil
}
