package archtest

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// crashpointVar is the environment variable of the daemon's crash points
// (daemon/crashpoint.go), a test hook that must not ship.
const crashpointVar = "MMBOT_CRASHPOINT"

// TestReleaseBuildHasNoCrashpoints: the crash points of the crash tests are
// compiled only with the build tag mmbot_crashpoint. In the default
// (release) build no Go file of any package of ours names their variable,
// so the binary cannot contain it; with the tag, the daemon has them.
func TestReleaseBuildHasNoCrashpoints(t *testing.T) {
	var files int
	for path, p := range goList(t) {
		if !ours(path) {
			continue
		}
		for _, f := range p.GoFiles {
			b, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			files++
			if bytes.Contains(b, []byte(crashpointVar)) {
				t.Errorf("%s/%s names %s in the release build: give it the build tag mmbot_crashpoint", short(path), f, crashpointVar)
			}
		}
	}
	if files == 0 {
		t.Fatal("no Go file checked")
	}
	tagged := goList(t, "mmbot_crashpoint")[module+"/daemon"]
	if tagged == nil || !slices.Contains(tagged.GoFiles, "crashpoint.go") {
		t.Fatal("with -tags mmbot_crashpoint the daemon package lacks crashpoint.go: the crash tests would test nothing")
	}
}
