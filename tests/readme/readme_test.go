// Package readme runs the commands README.md tells a new user to copy, so the
// README cannot drift from what the tool does.
//
// A block runs when the line before its opening fence is
// <!-- readme-test [exit=N] [contains="TEXT"] -->: it runs with bash from
// the repository root, in order, and must exit N (default 0) and, if given,
// print TEXT.
package readme

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

type block struct {
	line     int
	script   string
	exit     int
	contains string
}

var marker = regexp.MustCompile(`^<!-- readme-test(?: exit=(\d+))?(?: contains="([^"]*)")? -->$`)

func parse(t *testing.T, md string) []block {
	var out []block
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		m := marker.FindStringSubmatch(strings.TrimSpace(lines[i]))
		if m == nil {
			if strings.Contains(lines[i], "<!-- readme-test") {
				t.Fatalf("README.md:%d: malformed marker %q", i+1, lines[i])
			}
			continue
		}
		if i+1 >= len(lines) || strings.TrimSpace(lines[i+1]) != "```sh" {
			t.Fatalf("README.md:%d: a readme-test marker must precede a ```sh block", i+1)
		}
		b := block{line: i + 2, contains: m[2]}
		if m[1] != "" {
			b.exit, _ = strconv.Atoi(m[1])
		}
		var body []string
		for i += 2; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			body = append(body, lines[i])
		}
		b.script = strings.Join(body, "\n")
		out = append(out, b)
	}
	return out
}

func TestReadmeCommands(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := parse(t, string(md))
	if len(blocks) < 8 {
		t.Fatalf("only %d runnable blocks in README.md", len(blocks))
	}
	// What the blocks create at the root is the user's to keep; the test
	// removes what it made.
	before := map[string]bool{}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		before[e.Name()] = true
	}
	t.Cleanup(func() {
		entries, _ := os.ReadDir(root)
		for _, e := range entries {
			if !before[e.Name()] && !e.IsDir() {
				os.Remove(filepath.Join(root, e.Name()))
			}
		}
	})
	for _, b := range blocks {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-eo", "pipefail", "-c", b.script)
		cmd.Dir = root
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		cancel()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("README.md:%d: %v", b.line, err)
		}
		if code != b.exit {
			t.Fatalf("README.md:%d: exit %d, want %d\n%s\n--- output:\n%s", b.line, code, b.exit, b.script, out.String())
		}
		if b.contains != "" && !strings.Contains(out.String(), b.contains) {
			t.Fatalf("README.md:%d: output lacks %q\n%s", b.line, b.contains, out.String())
		}
	}
}
