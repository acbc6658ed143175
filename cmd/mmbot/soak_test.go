package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/exchange/sim"
	"github.com/mmbot/mmbot/internal/logging"
)

// TestSoak runs the real daemon against the real `mmbot sim` for the
// duration in the SOAK environment variable (e.g. SOAK=10m; skipped when
// unset), with SOAK_MARKETS markets (default 200), four orders a market and
// a 1 s cycle, the simulator's own rate limits off. From the simulator's
// request log (every request that reached it) it computes each spec cap's
// busiest window and requires at most 0.95 of the cap; from its trade log
// and the journal it measures how long after each of the bot's trades the
// journal booked it (p50, p99; at most two cycles); it samples the
// daemon's resident memory. docs/operations.md, "Soak test".
func TestSoak(t *testing.T) {
	spec := os.Getenv("SOAK")
	if spec == "" {
		t.Skip("soak test of the real binary: set SOAK to a duration, e.g. SOAK=10m")
	}
	run, err := time.ParseDuration(spec)
	if err != nil || run < 10*time.Second {
		t.Fatalf("SOAK=%q: want a duration of at least 10s", spec)
	}
	markets := 200
	if s := os.Getenv("SOAK_MARKETS"); s != "" {
		if markets, err = strconv.Atoi(s); err != nil || markets < 1 {
			t.Fatalf("SOAK_MARKETS=%q: want a positive integer", s)
		}
	}
	bin := needDaemon(t)
	if raceBuild {
		t.Skip("the race detector distorts memory and timing: run the soak without -race")
	}
	const cycle = time.Second
	dir := t.TempDir()
	sp := startSoakSim(t, bin, dir, markets)
	cfg := botConfig{se: &simEnv{urls: sp.urls, credsPath: sp.creds}, statePath: filepath.Join(dir, "mmbot.db"), markets: markets,
		cycle: cycle.String(), cancelWait: "60s", builder: testBuilderCode,
		levels: `[{ offset = "0.01", size = "10" }, { offset = "0.03", size = "20" }]`,
		risk: `max_position = "1000"
max_total_position = "10000000"
max_collateral_at_risk = "10000000"
max_open_orders_total = 2000
max_drawdown = "10000000"`,
	}.write(t, dir)
	p := startDaemon(t, bin, cfg)
	p.mustReady(5 * time.Minute)
	start := time.Now()
	t.Logf("daemon ready, quoting %d markets; soaking for %s", len(p.linesWith("quoting")), run)

	var mem soakMem
	tick := time.NewTicker(5 * time.Second)
	end := time.NewTimer(run)
	for sampling := true; sampling; {
		select {
		case <-tick.C:
			if p.exited() {
				t.Fatalf("daemon exited during the soak; log:\n%s", p.tail(40))
			}
			mem.sample(t, p.cmd.Process.Pid)
		case <-end.C:
			sampling = false
		}
	}
	tick.Stop()
	mem.sample(t, p.cmd.Process.Pid)
	stop := time.Now()
	p.signal(syscall.SIGTERM)
	if _, ok := p.wait(2 * time.Minute); !ok {
		t.Fatalf("daemon did not stop; log:\n%s", p.tail(40))
	}
	sp.stop(t)

	reqs := readSoakRequests(t, filepath.Join(dir, "requests.jsonl"))
	usage := countCaps(soakCaps(), reqs)
	var b strings.Builder
	fmt.Fprintf(&b, "soak: %d markets, cycle %s, %s from ready to stop (%d requests logged by the simulator)\n", markets, cycle, stop.Sub(start).Round(time.Second), len(reqs))
	fmt.Fprintf(&b, "%-26s %8s %8s %7s %9s  %s\n", "cap", "busiest", "cap", "ratio", "total", "window at")
	for _, u := range usage {
		at := "-"
		if !u.at.IsZero() {
			at = fmt.Sprintf("%+ds", int(u.at.Sub(start).Round(time.Second)/time.Second))
		}
		fmt.Fprintf(&b, "%-26s %8d %5d/%-4s %6.3f %9d  %s\n", u.name, u.busiest, u.cap.Requests, shortWindow(u.cap.Window), u.ratio(), u.total, at)
		if u.ratio() > 0.95 {
			t.Errorf("%s: %d in one window of %s, %.3f of the cap %d (> 0.95)", u.name, u.busiest, u.cap.Window, u.ratio(), u.cap.Requests)
		}
	}
	statuses := map[int]int{}
	for _, r := range reqs {
		statuses[r.status]++
	}
	fmt.Fprintf(&b, "statuses: %v\n", statuses)

	trades := readSoakTrades(t, filepath.Join(dir, "trades.jsonl"), sp.wallet)
	books, unpaired := soakBookings(t, p, filepath.Join(dir, "mmbot.db"), stop)
	delays, unbooked := fillDelays(trades, books)
	late := 0
	for _, tr := range unbooked {
		if stop.Sub(tr.t) > 2*cycle {
			late++ // older than two cycles at the stop: should have been booked
		}
	}
	fmt.Fprintf(&b, "fills: %d of the bot's trades at the exchange, %d journal bookings (%d without their log line), %d trades unbooked (%d older than two cycles at the stop)\n",
		len(trades), len(books), unpaired, len(unbooked), late)
	p50, p99 := percentile(delays, 50), percentile(delays, 99)
	fmt.Fprintf(&b, "trade to booking: p50 %s, p99 %s, max %s (limit %s)\n", p50.Round(time.Millisecond), p99.Round(time.Millisecond),
		percentile(delays, 100).Round(time.Millisecond), 2*cycle)
	fmt.Fprintf(&b, "daemon memory: VmRSS last %.1f MB, max %.1f MB; VmHWM %.1f MB (%d samples)\n", mem.last, mem.max, mem.hwm, mem.n)
	t.Log("\n" + b.String())
	if p99 > 2*cycle {
		t.Errorf("fills booked %s after the trade at p99, want at most two cycles (%s)", p99, 2*cycle)
	}
	if late > 0 {
		t.Errorf("%d of the bot's trades were never booked in the journal", late)
	}
}

func shortWindow(w time.Duration) string {
	if w%time.Minute == 0 {
		return fmt.Sprintf("%dm", int(w/time.Minute))
	}
	return fmt.Sprintf("%ds", int(w/time.Second))
}

// soakSim is a running `mmbot sim` for the soak.
type soakSim struct {
	p      *daemonProc
	urls   sim.URLs
	creds  string
	wallet string // the bot's wallet, lower case
}

// startSoakSim starts `mmbot sim` on 127.0.0.1:0 with markets markets, its
// rate limits off, and its request and trade logs in dir.
func startSoakSim(t *testing.T, bin, dir string, markets int) *soakSim {
	t.Helper()
	creds := filepath.Join(dir, "creds.json")
	cmd := exec.Command(bin, "sim", "--addr", "127.0.0.1:0", "--seed", "17", "--markets", strconv.Itoa(markets),
		"--no-rate-limits", "--fund", "10000000", "--flow-rate", "0.05", "--creds-out", creds,
		"--request-log", filepath.Join(dir, "requests.jsonl"), "--trade-log", filepath.Join(dir, "trades.jsonl"))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MMBOT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	p := &daemonProc{t: t, cmd: cmd, changed: make(chan struct{}), done: make(chan struct{})}
	cmd.Stdout = &p.stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go p.read(stderr)
	t.Cleanup(func() {
		if !p.exited() {
			_ = cmd.Process.Kill()
			<-p.done
		}
	})
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(p.stdout.String(), "credentials  ") {
		if p.exited() || time.Now().After(deadline) {
			t.Fatalf("mmbot sim did not start; stdout:\n%s\nstderr:\n%s", p.stdout.String(), p.tail(20))
		}
		time.Sleep(50 * time.Millisecond)
	}
	f, err := sim.ReadCredentialsFile(creds)
	if err != nil || len(f.Accounts) == 0 {
		t.Fatalf("credentials of mmbot sim: %v", err)
	}
	return &soakSim{p: p, creds: creds, urls: sim.URLs{Data: f.DataURL, Catalog: f.Catalog, CLOB: f.CLOB}, wallet: strings.ToLower(f.Accounts[0].Wallet)}
}

// stop interrupts the simulator, which flushes its logs.
func (s *soakSim) stop(t *testing.T) {
	t.Helper()
	s.p.signal(syscall.SIGINT)
	ws, ok := s.p.wait(time.Minute)
	if !ok || !ws.Exited() || ws.ExitStatus() != 0 {
		t.Fatalf("mmbot sim did not stop cleanly (%v); stdout:\n%s", ws, s.p.stdout.String())
	}
}

// soakMem samples a process's resident memory.
type soakMem struct {
	n              int
	last, max, hwm float64
}

func (m *soakMem) sample(t *testing.T, pid int) {
	rss, hwm := procMemMB(t, pid)
	m.n++
	m.last, m.max, m.hwm = rss, max(m.max, rss), hwm
}

func readSoakRequests(t *testing.T, path string) []soakRequest {
	t.Helper()
	var out []soakRequest
	eachJSONLine(t, path, func(b []byte) error {
		var l simRequestLine
		if err := json.Unmarshal(b, &l); err != nil {
			return err
		}
		out = append(out, soakRequest{t: time.Unix(0, l.Time), method: l.Method, path: l.Path, status: l.Status, orders: l.Orders})
		return nil
	})
	return out
}

// readSoakTrades returns the trades of wallet's orders (maker or taker).
func readSoakTrades(t *testing.T, path, wallet string) []soakTrade {
	t.Helper()
	var out []soakTrade
	eachJSONLine(t, path, func(b []byte) error {
		var l simTradeLine
		if err := json.Unmarshal(b, &l); err != nil {
			return err
		}
		size, err := decimal.NewFromString(l.Size)
		if err != nil {
			return err
		}
		for _, side := range [][2]string{{l.MakerWallet, l.MakerOrder}, {l.TakerWallet, l.TakerOrder}} {
			if strings.EqualFold(side[0], wallet) {
				out = append(out, soakTrade{t: time.Unix(0, l.Time), order: strings.ToLower(side[1]), size: size})
			}
		}
		return nil
	})
	return out
}

func eachJSONLine(t *testing.T, path string, fn func([]byte) error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if err := fn(sc.Bytes()); err != nil {
			t.Fatalf("%s line %d: %v", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// soakBookings reads the journal's fills after the daemon stopped. A fill's
// booking time is the time of its "fill" log line, written in the cycle
// that journals it: the journal's fills in their booking order (Seq) are
// paired in order with the log lines of the same side, price and size.
// unpaired counts fills without a line (taken as booked at the stop).
func soakBookings(t *testing.T, p *daemonProc, statePath string, stopped time.Time) (out []soakBooking, unpaired int) {
	t.Helper()
	j := readJournal(t, statePath)
	fills := append(j.fills[:0:0], j.fills...)
	sort.Slice(fills, func(a, b int) bool { return fills[a].Seq < fills[b].Seq })
	lines := p.linesWith("fill")
	next := 0
	cum := map[string]decimal.Decimal{}
	for _, f := range fills {
		h := strings.ToLower(f.OrderHash)
		cum[h] = cum[h].Add(f.Size)
		booked := time.Time{}
		for k := next; k < len(lines); k++ {
			l := lines[k]
			if l.str("side") == string(f.Side) && decEq(l.str("price"), f.Price) && decEq(l.str("size"), f.Size) {
				if ts, err := time.Parse(logging.TimeLayout, l.str("time")); err == nil {
					booked, next = ts, k+1
				}
				break
			}
		}
		if booked.IsZero() {
			unpaired++
			booked = stopped
		}
		out = append(out, soakBooking{order: h, through: cum[h], t: booked})
	}
	return out, unpaired
}

func decEq(s string, d decimal.Decimal) bool {
	v, err := decimal.NewFromString(s)
	return err == nil && v.Equal(d)
}
