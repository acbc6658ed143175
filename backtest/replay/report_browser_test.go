package replay

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mmbot/mmbot/backtest/internal/synthetic"
	"github.com/mmbot/mmbot/backtest/report"
)

// browser returns a headless-capable Chromium or Chrome on PATH.
func browser() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// headless runs the browser on a local file with networking features off
// and a throw-away profile, with extra flags (--dump-dom, --screenshot=…).
func headless(t *testing.T, bin, page string, extra ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--window-size=1280,2000"}, extra...)
	args = append(args, "file://"+page)
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, errb.Bytes())
	}
	return out.Bytes()
}

// TestReportRendersInBrowser opens the HTML report of a replay in headless
// Chromium: the DOM the browser builds holds every plot as SVG with drawn
// lines, points and histogram bars, and a screenshot comes out. The test
// is skipped when no Chromium or Chrome is installed (.ci/run installs
// Chromium).
func TestReportRendersInBrowser(t *testing.T) {
	bin := browser()
	if bin == "" {
		t.Skip("no chromium, chromium-browser or google-chrome on PATH: the browser check of the HTML report is skipped")
	}
	evs := synthetic.Events(t, synthetic.Config{Seed: 2, Duration: 20 * time.Minute, Books: 2, Levels: 5, Trades: 1, Informed: 0.3, Vol: 0.6})
	res, err := Run(context.Background(), &SliceSource{Events: evs}, benchRunConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.Total.Fills == 0 {
		t.Fatal("no fill to plot")
	}
	dir := t.TempDir()
	if err := report.SaveReports(dir, res); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "report.html")
	dom := string(headless(t, bin, page, "--dump-dom"))

	// A PnL and a drawdown plot, a price and an inventory plot per token,
	// one markout histogram per horizon.
	wantSVG := 2 + 2*len(res.Tokens) + len(res.Markouts)
	if got := strings.Count(dom, "<svg"); got != wantSVG {
		t.Errorf("the browser's DOM holds %d svg elements, want %d", got, wantSVG)
	}
	paths := regexp.MustCompile(`<path[^>]*\sd="([^"]*)"`).FindAllStringSubmatch(dom, -1)
	drawn := 0
	for _, p := range paths {
		if strings.Count(p[1], "L")+strings.Count(p[1], "V") >= 2 { // lines and steps
			drawn++
		}
	}
	// The PnL and drawdown lines, and per token the mid and the inventory
	// at least.
	if want := 2 + 2*len(res.Tokens); drawn < want {
		t.Errorf("%d drawn lines (paths with segments) in the DOM, want at least %d", drawn, want)
	}
	if n := strings.Count(dom, "<circle"); n == 0 {
		t.Error("no fill is drawn (no circle in the DOM)")
	}
	if n := strings.Count(dom, `class="bar"`); n == 0 {
		t.Error("no markout histogram bar in the DOM")
	}
	if !strings.Contains(dom, "fill mode: queue") || !strings.Contains(dom, "latency: order 50ms, cancel 50ms, data 20ms") {
		t.Error("the rendered page does not state the fill mode and latency")
	}

	shot := filepath.Join(dir, "report.png")
	headless(t, bin, page, "--screenshot="+shot)
	png, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 20_000 {
		t.Errorf("screenshot: %d bytes, not a PNG of a drawn page", len(png))
	}
	if keep := os.Getenv("MMBOT_KEEP_SCREENSHOT"); keep != "" {
		if err := os.WriteFile(keep, png, 0o644); err != nil {
			t.Error(err)
		}
	}
}
