package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"github.com/mmbot/mmbot/exchange/sim"
)

// simRequestLine is one line of mmbot sim --request-log (JSON lines): what
// reached the exchange, counted independently of any client's limiter.
type simRequestLine struct {
	Time   int64  `json:"t"` // arrival, Unix nanoseconds
	Method string `json:"method"`
	Path   string `json:"path"`
	Status int    `json:"status"`
	Orders int    `json:"orders,omitempty"` // placement items of a POST /clob/orders body
}

// simTradeLine is one line of mmbot sim --trade-log: one fill, both sides.
type simTradeLine struct {
	Time        int64  `json:"t"` // Unix nanoseconds, the exchange's clock
	TradeID     string `json:"id"`
	Market      string `json:"market"`
	Size        string `json:"size"`
	Price       string `json:"price"` // the taker's token
	TakerWallet string `json:"taker"`
	TakerOrder  string `json:"taker_order"`
	MakerWallet string `json:"maker"`
	MakerOrder  string `json:"maker_order"`
}

// jsonLines appends JSON lines to a file, safe for concurrent use; close
// flushes and reports the first error.
type jsonLines struct {
	mu   sync.Mutex
	path string
	f    *os.File
	w    *bufio.Writer
	err  error
}

func createJSONLines(path string) (*jsonLines, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	return &jsonLines{path: path, f: f, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

func (l *jsonLines) write(v any) {
	b, err := json.Marshal(v)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil || l.f == nil {
		return
	}
	if err == nil {
		b = append(b, '\n')
		_, err = l.w.Write(b)
	}
	l.err = err
}

func (l *jsonLines) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil // closed already
	}
	err := l.err
	if ferr := l.w.Flush(); err == nil {
		err = ferr
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	if err != nil {
		return fmt.Errorf("%s: %w", l.path, err)
	}
	return nil
}

// simLogs are the optional request and trade logs of mmbot sim.
type simLogs struct{ requests, trades *jsonLines }

// openSimLogs creates the files named (either may be "") and hooks them
// into cfg, keeping any OnTrade already set.
func openSimLogs(cfg *sim.Config, requestLog, tradeLog string) (*simLogs, error) {
	l := &simLogs{}
	var err error
	if requestLog != "" {
		if l.requests, err = createJSONLines(requestLog); err != nil {
			return nil, err
		}
		cfg.OnRequest = func(r sim.RequestRecord) {
			l.requests.write(simRequestLine{Time: r.Time.UnixNano(), Method: r.Method, Path: r.Path, Status: r.Status, Orders: r.Orders})
		}
	}
	if tradeLog != "" {
		if l.trades, err = createJSONLines(tradeLog); err != nil {
			_ = l.close()
			return nil, err
		}
		prev := cfg.OnTrade
		cfg.OnTrade = func(t sim.TradeEvent) {
			if prev != nil {
				prev(t)
			}
			l.trades.write(simTradeLine{Time: t.Time.UnixNano(), TradeID: t.TradeID, Market: t.Market, Size: t.Size.String(), Price: t.Price.String(),
				TakerWallet: t.TakerWallet, TakerOrder: t.TakerOrder, MakerWallet: t.MakerWallet, MakerOrder: t.MakerOrder})
		}
	}
	return l, nil
}

// close flushes and closes both files (after the exchange has stopped).
func (l *simLogs) close() error {
	var first error
	for _, j := range []*jsonLines{l.requests, l.trades} {
		if j == nil {
			continue
		}
		if err := j.close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
