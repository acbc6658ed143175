package main

import (
	"debug/buildinfo"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionString(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	platform := []debug.BuildSetting{{Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "amd64"}}
	vcs := func(modified string) []debug.BuildSetting {
		return append([]debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: "2026-03-01T12:00:00Z"},
			{Key: "vcs.modified", Value: modified},
		}, platform...)
	}
	info := func(version string, settings []debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/mmbot/mmbot", Version: version}, Settings: settings}
	}
	cases := []struct {
		name    string
		ldflags string
		info    *debug.BuildInfo
		want    string
	}{
		{"go install @v0.3.1", "dev", info("v0.3.1", platform),
			"v0.3.1 (go1.26.0 linux/amd64)"},
		{"go build in a clean checkout", "dev", info("v0.3.2-0.20260301120000-0123456789ab", vcs("false")),
			"v0.3.2-0.20260301120000-0123456789ab (rev 0123456789ab, 2026-03-01T12:00:00Z, go1.26.0 linux/amd64)"},
		{"go build in a dirty checkout", "dev", info("v0.0.0-20260301120000-0123456789ab+dirty", vcs("true")),
			"v0.0.0-20260301120000-0123456789ab+dirty (rev 0123456789ab+dirty, 2026-03-01T12:00:00Z, go1.26.0 linux/amd64)"},
		{"-ldflags version wins", "1.4.0", info("v0.3.1", vcs("false")),
			"1.4.0 (rev 0123456789ab, 2026-03-01T12:00:00Z, go1.26.0 linux/amd64)"},
		{"-ldflags version, no VCS", "6b87c7f", info("(devel)", platform),
			"6b87c7f (go1.26.0 linux/amd64)"},
		{"go build without VCS", "dev", info("(devel)", platform),
			"dev (go1.26.0 linux/amd64)"},
		{"empty -ldflags version", "", info("", nil),
			"dev (go1.26.0)"},
		{"short revision", "dev", info("(devel)", []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}),
			"dev (rev abc+dirty, go1.26.0)"},
		{"no build information", "dev", nil,
			"dev (" + runtime.Version() + ")"},
	}
	for _, c := range cases {
		if got := versionString(c.ldflags, c.info); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// The binary says more than "mmbot dev": its line is versionString of its
// own build information, with the VCS revision when the build stamped one.
func TestVersionOfBinary(t *testing.T) {
	bin := needDaemon(t)
	var lines []string
	for _, args := range [][]string{{"--version"}, {"version"}} {
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("mmbot %s: %v", args[0], err)
		}
		lines = append(lines, string(out))
	}
	if lines[0] != lines[1] {
		t.Fatalf("--version %q, version %q: want the same line", lines[0], lines[1])
	}
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.TrimSuffix(lines[0], "\n")
	if want := "mmbot " + versionString("", info); got != want {
		t.Fatalf("mmbot --version = %q, want %q", got, want)
	}
	if got == "mmbot dev" || !strings.Contains(got, info.GoVersion) {
		t.Fatalf("mmbot --version = %q: no Go version", got)
	}
	rev := ""
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			rev = s.Value
		}
	}
	if rev == "" {
		// go build stamps the revision in a git clone, not in a git
		// worktree (.git is a file there) nor with -buildvcs=false.
		t.Logf("the build recorded no VCS revision; mmbot --version = %q", got)
		return
	}
	if !strings.Contains(got, "rev "+rev[:12]) {
		t.Fatalf("mmbot --version = %q, want revision %s", got, rev[:12])
	}
}
