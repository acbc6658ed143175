package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const versionLong = `Prints the version of this binary, as mmbot --version does: the version set
at build time (-ldflags "-X main.version=..."), else the module version that
go install stamps (v0.3.1 for go install ...@v0.3.1), else "dev"; then the
VCS revision, its time and +dirty when the build recorded them (go build in
a git checkout), and the Go version and platform.`

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "print the version",
		Long:    versionLong,
		Example: "  mmbot version\n  mmbot --version",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(e.stdout, "mmbot", cmd.Root().Version)
			return err
		},
	}
}

// buildVersion describes this binary (see versionString).
func buildVersion(ldflags string) string {
	info, _ := debug.ReadBuildInfo()
	return versionString(ldflags, info)
}

// versionString describes a binary built with the -ldflags version ldflags
// and the build information info (nil when the binary has none), for
// example "v0.3.1 (go1.26.8 linux/amd64)" or
// "dev (rev 6b87c7f11f19+dirty, 2026-03-01T12:00:00Z, go1.26.8 linux/amd64)".
func versionString(ldflags string, info *debug.BuildInfo) string {
	v := ldflags
	if v == "" || v == "dev" {
		v = "dev"
		if info != nil && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
	}
	settings := map[string]string{}
	goVersion := runtime.Version()
	if info != nil {
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
		if info.GoVersion != "" {
			goVersion = info.GoVersion
		}
	}
	var parts []string
	if rev := settings["vcs.revision"]; rev != "" {
		rev = rev[:min(len(rev), 12)]
		if settings["vcs.modified"] == "true" {
			rev += "+dirty"
		}
		parts = append(parts, "rev "+rev)
	}
	if t := settings["vcs.time"]; t != "" {
		parts = append(parts, t)
	}
	if goos, goarch := settings["GOOS"], settings["GOARCH"]; goos != "" && goarch != "" {
		goVersion += " " + goos + "/" + goarch
	}
	parts = append(parts, goVersion)
	return v + " (" + strings.Join(parts, ", ") + ")"
}
