package export

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/mmbot/mmbot/exchange"
)

// The files of an exported recording.
const (
	BooksFile  = "books.parquet"
	TradesFile = "trades.parquet"
	MetaFile   = "meta.parquet"
)

// SchemaVersion is written into every file's key-value metadata as
// mmbot.schema_version; it changes when a column changes meaning or type
// (adding a column does not change it).
const SchemaVersion = "1"

// Every file of a recording starts with the event's place and time.
func eventFields() []field {
	return []field{
		required("seq", int64Type),
		required("time", timeType),
		nullable("exchange_time", msType),
		nullable("received_time", timeType),
	}
}

var booksFields = append(eventFields(),
	required("token", stringType),
	nullable("market", stringType),
	nullable("side", stringType),
	nullable("level", int32Type),
	nullable("price", priceType),
	nullable("size", priceType),
	nullable("tick", priceType),
	nullable("min_size", priceType),
)

var tradesFields = append(eventFields(),
	required("token", stringType),
	nullable("market", stringType),
	required("price", priceType),
	required("size", priceType),
	nullable("taker_side", stringType),
)

var metaFields = append(eventFields(),
	nullable("token", stringType),
	nullable("market", stringType),
	nullable("tick", priceType),
	nullable("min_size", priceType),
	nullable("end_date", timeType),
	nullable("resolved", boolType),
	nullable("payout", priceType),
	nullable("reward_max_spread", priceType),
	nullable("reward_min_size", priceType),
	nullable("reward_daily_rate", priceType),
	nullable("seconds_delay", int64Type),
	nullable("neg_risk", boolType),
	nullable("question", stringType),
	nullable("slug", stringType),
)

// RecordingCounts says what an export of a recording wrote.
type RecordingCounts struct {
	Events     int64 // events read
	Books      int64 // book snapshots
	Levels     int64 // rows of books.parquet that are levels
	EmptyBooks int64 // snapshots with no level (one row each)
	Trades     int64
	Metas      int64
}

// RecordingWriter writes the events of one recording as books.parquet,
// trades.parquet and meta.parquet in a directory. Rows are written in
// groups of Options.RowGroupRows as events arrive, so its memory does not
// grow with the recording's length. Each file appears at Close, complete,
// or not at all.
type RecordingWriter struct {
	books, trades, meta *table
	counts              RecordingCounts
	done                bool
}

// NewRecordingWriter starts the three files in dir (which must exist).
// The header is kept in each file's key-value metadata.
func NewRecordingWriter(dir string, h recording.Header, opt Options) (*RecordingWriter, error) {
	kv := [][2]string{
		{"mmbot.schema_version", SchemaVersion},
		{"mmbot.recording.format", h.Format},
		{"mmbot.recording.version", fmt.Sprint(h.Version)},
		{"mmbot.recording.created", h.Created.UTC().Format(time.RFC3339Nano)},
		{"mmbot.recording.source", h.Source},
	}
	w := &RecordingWriter{}
	var err error
	for _, f := range []struct {
		t      **table
		name   string
		fields []field
	}{{&w.books, BooksFile, booksFields}, {&w.trades, TradesFile, tradesFields}, {&w.meta, MetaFile, metaFields}} {
		if *f.t, err = newTable(filepath.Join(dir, f.name), f.fields, kv, opt); err != nil {
			w.Abort()
			return nil, err
		}
	}
	return w, nil
}

// Write adds one event. After an error the writer is unusable: Abort it.
func (w *RecordingWriter) Write(e recording.Event) error {
	if w.done {
		return errors.New("export: write after Close or Abort")
	}
	seq := w.counts.Events
	w.counts.Events++
	switch {
	case e.Kind == recording.KindBook && e.Book != nil:
		return w.writeBook(seq, e.Book)
	case e.Kind == recording.KindTrade && e.Trade != nil:
		return w.writeTrade(seq, e.Trade)
	case e.Kind == recording.KindMeta && e.Meta != nil:
		return w.writeMeta(seq, e.Meta)
	}
	return fmt.Errorf("export: event %d: invalid %s event", seq, e.Kind)
}

// stamp writes the columns every file starts with.
func stamp(r *row, seq int64, s recording.Stamp) {
	r.int(seq)
	r.time(s.Time())
	r.optTime(s.Exchange)
	r.optTime(s.Received)
}

func (w *RecordingWriter) writeBook(seq int64, b *recording.Book) error {
	w.counts.Books++
	if len(b.Bids) == 0 && len(b.Asks) == 0 {
		// An empty book is a fact (the book emptied): one row with no level.
		w.counts.EmptyBooks++
		r := w.books.row()
		stamp(&r, seq, b.Stamp)
		r.str(b.TokenID)
		r.optStr(b.Market)
		r.null()
		r.null()
		r.null()
		r.null()
		r.optDec(b.TickSize)
		r.optDec(b.MinOrderSize)
		if err := r.end(); err != nil {
			return fmt.Errorf("event %d: %w", seq, err)
		}
		return nil
	}
	for _, side := range []struct {
		name   string
		levels []exchange.PriceLevel
	}{{"bid", b.Bids}, {"ask", b.Asks}} {
		for i := range side.levels {
			w.counts.Levels++
			r := w.books.row()
			stamp(&r, seq, b.Stamp)
			r.str(b.TokenID)
			r.optStr(b.Market)
			r.str(side.name)
			r.int32(int32(i))
			r.dec(side.levels[i].Price)
			r.dec(side.levels[i].Size)
			r.optDec(b.TickSize)
			r.optDec(b.MinOrderSize)
			if err := r.end(); err != nil {
				return fmt.Errorf("event %d: %w", seq, err)
			}
		}
	}
	return nil
}

func (w *RecordingWriter) writeTrade(seq int64, t *recording.Trade) error {
	w.counts.Trades++
	r := w.trades.row()
	stamp(&r, seq, t.Stamp)
	r.str(t.TokenID)
	r.optStr(t.Market)
	r.dec(t.Price)
	r.dec(t.Size)
	r.optStr(string(t.TakerSide))
	if err := r.end(); err != nil {
		return fmt.Errorf("event %d: %w", seq, err)
	}
	return nil
}

func (w *RecordingWriter) writeMeta(seq int64, m *recording.Meta) error {
	w.counts.Metas++
	r := w.meta.row()
	stamp(&r, seq, m.Stamp)
	r.optStr(m.TokenID)
	r.optStr(m.Market)
	r.optDec(m.TickSize)
	r.optDec(m.MinOrderSize)
	r.optTime(m.EndDate)
	if m.Resolved {
		r.bool(true)
		r.dec(m.Payout) // 0 for a losing token: not null
	} else {
		r.null()
		r.null()
	}
	r.optDec(m.RewardMaxSpread)
	r.optDec(m.RewardMinSize)
	r.optDec(m.RewardDailyRate)
	if m.SecondsDelay != 0 {
		r.int(m.SecondsDelay)
	} else {
		r.null()
	}
	if m.NegRisk {
		r.bool(true)
	} else {
		r.null()
	}
	r.optStr(m.Question)
	r.optStr(m.Slug)
	if err := r.end(); err != nil {
		return fmt.Errorf("event %d: %w", seq, err)
	}
	return nil
}

// Counts returns what has been written so far.
func (w *RecordingWriter) Counts() RecordingCounts { return w.counts }

// Close writes the last row groups and places the three files. If one
// fails, the ones not yet placed are dropped.
func (w *RecordingWriter) Close() error {
	if w.done {
		return errors.New("export: Close after Close or Abort")
	}
	for _, t := range []*table{w.books, w.trades, w.meta} {
		if err := t.commit(); err != nil {
			w.Abort()
			return err
		}
	}
	w.done = true
	return nil
}

// Abort drops the files not yet placed.
func (w *RecordingWriter) Abort() {
	w.done = true
	for _, t := range []*table{w.books, w.trades, w.meta} {
		if t != nil {
			t.abort()
		}
	}
}

// Recording reads the recording at in and writes its three files
// into dir, creating dir if needed. It streams: one event and one row
// group per file in memory. A cancelled ctx stops it and leaves no file.
func Recording(ctx context.Context, in, dir string, opt Options) (RecordingCounts, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return RecordingCounts{}, fmt.Errorf("export: %w", err)
	}
	rd, err := recording.Open(in)
	if err != nil {
		return RecordingCounts{}, err
	}
	defer rd.Close()
	w, err := NewRecordingWriter(dir, rd.Header(), opt)
	if err != nil {
		return RecordingCounts{}, err
	}
	for e, err := range rd.All() {
		if err == nil && w.counts.Events%4096 == 0 {
			err = ctx.Err()
		}
		if err == nil {
			err = w.Write(e)
		}
		if err != nil {
			w.Abort()
			return w.counts, fmt.Errorf("export %s: %w", in, err)
		}
	}
	if err := w.Close(); err != nil {
		return w.counts, err
	}
	return w.counts, nil
}
