package importer

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/mmbot/mmbot/backtest/recording"
	"github.com/shopspring/decimal"
)

// DefaultWindow is the default reorder window of Import, in events.
const DefaultWindow = 4096

// Options configures Import.
type Options struct {
	// TickSize and MinOrderSize are put on books whose message does not
	// carry them (a tick_size_change message overrides TickSize for its
	// token from then on). Zero leaves them unknown.
	TickSize     decimal.Decimal
	MinOrderSize decimal.Decimal
	// Window is how many events may be held to restore time order; 0 means
	// DefaultWindow.
	Window int
	// TradeSide says what the "side" of a last_trade_price message is:
	// "taker" (the default, ""): the aggressor's side, kept as is; "maker":
	// the resting order's side, inverted to give the taker's; "none":
	// dropped (trades of unknown side).
	TradeSide string
}

// Stats counts what Import read and wrote.
type Stats struct {
	Messages int            // messages read
	Books    int            // book events written (snapshots and rebuilt price_change books)
	Trades   int            // trade events written
	Metas    int            // meta events written
	Skipped  map[string]int // messages skipped, by event_type
}

// Error locates a failure in the input: the 1-based index of the
// message and the byte offset where decoding stood.
type Error struct {
	Message int
	Offset  int64
	Err     error
}

func (e *Error) Error() string {
	return fmt.Sprintf("message %d (byte %d): %v", e.Message, e.Offset, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// ImportFile converts the exchange-format file at in (JSON array or JSON
// Lines, optionally gzip-compressed) into a recording at out, committed only
// when the whole input converted.
func ImportFile(ctx context.Context, in, out string, opts Options, wopts ...recording.WriterOption) (Stats, error) {
	f, err := os.Open(in)
	if err != nil {
		return Stats{}, fmt.Errorf("import: %w", err)
	}
	defer f.Close()
	w, err := recording.NewWriter(out, wopts...)
	if err != nil {
		return Stats{}, err
	}
	st, err := Import(ctx, f, w, opts)
	if err != nil {
		_ = w.Abort()
		return st, fmt.Errorf("import %s: %w", in, err)
	}
	return st, w.Close()
}

// Import reads the exchange's public market-channel messages from r and
// writes them to sink as events in time order. The input is a JSON array of
// messages, or JSON Lines (one message, or one array of messages, per line),
// detected from its first byte; gzip input is decompressed. Memory stays
// bounded by the reorder window and the number of tokens, not by the input's
// length.
func Import(ctx context.Context, r io.Reader, sink recording.EventSink, opts Options) (Stats, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return Stats{}, fmt.Errorf("import: gzip: %w", err)
		}
		defer gz.Close()
		br = bufio.NewReaderSize(gz, 64<<10)
	}
	if opts.Window <= 0 {
		opts.Window = DefaultWindow
	}
	switch opts.TradeSide {
	case "", "taker", "maker", "none":
	default:
		return Stats{}, fmt.Errorf("import: trade side %q: want taker, maker or none", opts.TradeSide)
	}
	im := &importer{
		ctx: ctx, opts: opts,
		out:   reorder{window: opts.Window, sink: sink},
		books: map[string]*liveBook{},
		ticks: map[string]decimal.Decimal{},
		mins:  map[string]decimal.Decimal{},
		stats: Stats{Skipped: map[string]int{}},
	}
	first, err := firstByte(br)
	if err == io.EOF {
		return im.stats, nil
	}
	if err != nil {
		return im.stats, fmt.Errorf("import: %w", err)
	}
	im.dec = json.NewDecoder(br)
	if first == '[' {
		err = im.readArrays()
	} else {
		err = im.readValues()
	}
	if err == nil {
		err = im.out.flush()
	}
	return im.stats, err
}

// firstByte returns the first non-space byte without consuming it.
func firstByte(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		if b != ' ' && b != '\t' && b != '\r' && b != '\n' {
			return b, br.UnreadByte()
		}
	}
}

type importer struct {
	ctx   context.Context
	opts  Options
	dec   *json.Decoder
	out   reorder
	books map[string]*liveBook
	ticks map[string]decimal.Decimal
	mins  map[string]decimal.Decimal
	stats Stats
}

func (im *importer) fail(err error) error {
	return &Error{Message: im.stats.Messages, Offset: im.dec.InputOffset(), Err: err}
}

// readValues handles JSON Lines (or any sequence of JSON values): each value
// is a message object or an array of them.
func (im *importer) readValues() error {
	for {
		var raw json.RawMessage
		err := im.dec.Decode(&raw)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			im.stats.Messages++
			return im.fail(err)
		}
		if err := im.handleValue(raw); err != nil {
			return err
		}
	}
}

// readArrays streams top-level arrays element by element, so a file holding
// one huge array is never in memory at once.
func (im *importer) readArrays() error {
	for {
		tok, err := im.dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return im.fail(err)
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return im.fail(fmt.Errorf("expected an array of messages, found %v", tok))
		}
		for im.dec.More() {
			var raw json.RawMessage
			if err := im.dec.Decode(&raw); err != nil {
				im.stats.Messages++
				return im.fail(err)
			}
			if err := im.handleValue(raw); err != nil {
				return err
			}
		}
		if _, err := im.dec.Token(); err != nil {
			return im.fail(err)
		}
	}
}

// handleValue handles one message or one array of messages.
func (im *importer) handleValue(raw json.RawMessage) error {
	if len(raw) > 0 && raw[0] == '[' {
		var msgs []json.RawMessage
		if err := json.Unmarshal(raw, &msgs); err != nil {
			im.stats.Messages++
			return im.fail(err)
		}
		for _, m := range msgs {
			if err := im.handleValue(m); err != nil {
				return err
			}
		}
		return nil
	}
	im.stats.Messages++
	if im.stats.Messages%1024 == 0 {
		if err := im.ctx.Err(); err != nil {
			return err
		}
	}
	m, err := decodeMessage(raw)
	if err == nil {
		err = im.handle(&m)
	}
	if err != nil {
		return im.fail(err)
	}
	return nil
}
