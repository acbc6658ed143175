package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/backtest/scoreboard"
)

var updateScoreboard = flag.Bool("update-scoreboard", false, "rewrite testdata/scoreboard-short.md from mmbot scoreboard --short")

const scoreboardGolden = "testdata/scoreboard-short.md"

// The short scoreboard is regenerated and compared byte for byte: any
// change to the simulator, the replay, the models or their defaults shows
// here (rewrite it with -update-scoreboard, and regenerate
// docs/scoreboard.md with the command it names).
func TestScoreboardShortGolden(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, nil, "scoreboard", "--short", "--workers", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "scoreboard: [140/140] ran ") {
		t.Errorf("no progress on stderr: %q", errOut)
	}
	if *updateScoreboard {
		if err := os.WriteFile(scoreboardGolden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(scoreboardGolden)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Fatalf("mmbot scoreboard --short differs from %s (rerun with -update-scoreboard if the change is meant):\n%s",
			scoreboardGolden, firstDiff(string(want), out))
	}
	runs := 0
	for _, row := range strings.Split(out, "\n") {
		cells := strings.Split(strings.Trim(row, "| "), " | ")
		if len(cells) != 16 || (cells[2] != "conservative" && cells[2] != "queue") {
			continue
		}
		runs++
		if cells[15] != "0" {
			t.Errorf("limit breaches: %s", row)
		}
	}
	if runs != 70 {
		t.Errorf("%d rows in the table, want 7 scenarios × 5 models × 2 fill models", runs)
	}
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\nwant %s\ngot  %s", i+1, x, y)
		}
	}
	return ""
}

// docs/scoreboard.md holds the full table between its markers, generated
// by the command its first line names, with the same columns as the
// command writes.
func TestScoreboardDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/scoreboard.md")
	if err != nil {
		t.Fatal(err)
	}
	_, gen, ok := strings.Cut(string(doc), scoreboardBegin+"\n")
	if !ok {
		t.Fatalf("docs/scoreboard.md has no %q", scoreboardBegin)
	}
	gen, _, ok = strings.Cut(gen, scoreboardEnd)
	if !ok {
		t.Fatalf("docs/scoreboard.md has no %q", scoreboardEnd)
	}
	if want := fmt.Sprintf("Regenerate with `mmbot scoreboard --out docs/scoreboard.md`: %d seeds per scenario", scoreboard.DefaultOptions.Seeds); !strings.HasPrefix(gen, want) {
		t.Errorf("the generated part starts %q, want %q", firstLine(gen), want)
	}
	golden, err := os.ReadFile(scoreboardGolden)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(golden), "\n") {
		if strings.HasPrefix(l, "| scenario |") && !strings.Contains(gen, l+"\n") {
			t.Errorf("docs/scoreboard.md lacks the header %q: regenerate it", l)
		}
	}
	if !strings.Contains(string(doc), "mmbot scoreboard --out docs/scoreboard.md") {
		t.Error("docs/scoreboard.md does not name its command")
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func TestSpliceScoreboard(t *testing.T) {
	doc := "# T\n\nintro\n" + scoreboardBegin + "\nold table\n" + scoreboardEnd + "\n\nreading\n"
	got, err := spliceScoreboard(doc, "new\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "# T\n\nintro\n" + scoreboardBegin + "\nnew\n" + scoreboardEnd + "\n\nreading\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if _, err := spliceScoreboard("no markers", "x"); err == nil {
		t.Fatal("no markers: no error")
	}
	if _, err := spliceScoreboard(scoreboardBegin+"\nx", "x"); err == nil {
		t.Fatal("no end marker: no error")
	}
}

func TestScoreboardUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--scenario", "nope"}, `unknown scenario "nope"`},
		{[]string{"--duration", "10s"}, "want at least 1m"},
		{[]string{"--workers", "0"}, "--workers"},
		{[]string{"--markets", "-1"}, "--markets"},
	} {
		code, _, errOut := runCLI(t, nil, append([]string{"scoreboard"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// mmbot sim --simulated-clock records ten minutes of market without
// waiting for them, the same events for the same flags, with the
// resolutions of a scenario whose markets end.
func TestSimSimulatedClock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	count := func(name string, args ...string) ([]recording.Event, string) {
		path := filepath.Join(dir, name)
		code, out, errOut := runCLI(t, nil, append([]string{"sim", "--simulated-clock", "10m", "--markets", "3", "--record", path}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		rd, err := recording.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		var ev []recording.Event
		for {
			e, err := rd.Next()
			if err != nil {
				break
			}
			ev = append(ev, e)
		}
		return ev, out
	}
	a, out := count("a.mmrec")
	b, _ := count("b.mmrec")
	if len(a) < 100 || len(a) != len(b) {
		t.Fatalf("%d and %d events", len(a), len(b))
	}
	if !strings.Contains(out, "10m0s of simulated market") {
		t.Errorf("output %q", out)
	}
	if span := a[len(a)-1].Time().Sub(a[0].Time()); span < 9*60e9 {
		t.Errorf("the recording spans %s, want about 10m", span)
	}
	ev, _ := count("end.mmrec", "--scenario", "end-date")
	resolved := 0
	for _, e := range ev {
		if e.Kind == recording.KindMeta && e.Meta.Resolved {
			resolved++
		}
	}
	if resolved == 0 {
		t.Fatal("the end-date scenario recorded no resolution")
	}
	for _, c := range [][]string{{"--scenario", "calm"}, {"--simulated-clock", "-1s"}} {
		args := append([]string{"sim"}, c...)
		if c[0] == "--scenario" {
			args = append(args, "--record", filepath.Join(dir, "x.mmrec"))
		}
		if code, _, _ := runCLI(t, nil, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if code, _, errOut := runCLI(t, nil, "sim", "--simulated-clock", "1m"); code != 2 || !strings.Contains(errOut, "--record") {
		t.Errorf("without --record: exit %d, %q", code, errOut)
	}
}
