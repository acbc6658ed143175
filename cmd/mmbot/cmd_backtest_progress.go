package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mmbot/mmbot/daemon/status"
)

// btProgress reports a backtest's progress on stderr: the compressed bytes
// read of the recording (by every pass: the market scan and each run)
// against their total, events per second and the time left. On a terminal
// it redraws one bar every 200 ms; otherwise it writes a line every 10 s.
type btProgress struct {
	w        io.Writer
	terminal bool
	total    int64
	read     atomic.Int64
	nEvents  atomic.Int64
	start    time.Time
	now      func() time.Time

	once sync.Once
	quit chan struct{}
	done chan struct{}
}

func newBtProgress(w io.Writer, terminal bool, total int64) *btProgress {
	p := &btProgress{w: w, terminal: terminal, total: max(total, 1), start: time.Now(), now: time.Now,
		quit: make(chan struct{}), done: make(chan struct{})}
	every := 10 * time.Second
	if terminal {
		every = 200 * time.Millisecond
	}
	go p.loop(every)
	return p
}

func (p *btProgress) loop(every time.Duration) {
	defer close(p.done)
	t := time.NewTicker(every)
	defer t.Stop()
	drawn := false
	for {
		select {
		case <-p.quit:
			if drawn {
				fmt.Fprintf(p.w, "\r%s\x1b[K\n", p.line())
			}
			return
		case <-t.C:
			if p.terminal {
				fmt.Fprintf(p.w, "\r%s\x1b[K", p.line())
				drawn = true
			} else {
				fmt.Fprintf(p.w, "backtest: %s\n", p.line())
			}
		}
	}
}

// stop ends the reports (the last bar is completed with a newline); it may
// be called more than once.
func (p *btProgress) stop() {
	p.once.Do(func() { close(p.quit) })
	<-p.done
}

// reader counts the bytes read through r.
func (p *btProgress) reader(r io.Reader) io.Reader { return &countingReader{r: r, n: &p.read} }

// events returns a progress callback for a replay that reports every n
// events.
func (p *btProgress) events(n int64) func(int64) {
	return func(int64) { p.nEvents.Add(n) }
}

// line is the progress report: bar, percentage, bytes, events/s and ETA.
func (p *btProgress) line() string {
	return progressText(p.read.Load(), p.total, p.nEvents.Load(), p.now().Sub(p.start), p.terminal)
}

// progressText formats one report; a bar is drawn for a terminal.
func progressText(read, total, events int64, elapsed time.Duration, bar bool) string {
	frac := min(float64(read)/float64(max(total, 1)), 1)
	var b strings.Builder
	if bar {
		const width = 30
		full := int(frac * width)
		b.WriteString("[" + strings.Repeat("=", full))
		if full < width {
			b.WriteString(">" + strings.Repeat(" ", width-full-1))
		}
		b.WriteString("] ")
	}
	fmt.Fprintf(&b, "%5.1f%%  %s of %s", 100*frac, byteSize(read), byteSize(total))
	secs := elapsed.Seconds()
	if secs > 0 {
		fmt.Fprintf(&b, "  %s events/s", count(float64(events)/secs))
	}
	if frac > 0 && frac < 1 {
		eta := time.Duration(float64(elapsed) * (1 - frac) / frac)
		fmt.Fprintf(&b, "  ETA %s", status.Span(eta))
	}
	return b.String()
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func count(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.0fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// lockedWriter serialises writes: the runs of a sweep log from several
// goroutines, and the progress reports from another.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// countingReader adds the bytes read through it to n.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	k, err := c.r.Read(b)
	c.n.Add(int64(k))
	return k, err
}
