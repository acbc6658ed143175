package importer

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/shopspring/decimal"

	"github.com/mmbot/mmbot/backtest/recording"
)

// DefaultWindow is the default reorder window of Import, in events.
const DefaultWindow = 4096

// DefaultProgressEvery is how many messages pass between two calls of
// Options.Progress when ProgressEvery is 0.
const DefaultProgressEvery = 4096

// Options configures Import.
type Options struct {
	// Terms are trading terms for every market of the input (from
	// command-line flags): each non-zero field overrides the market's own
	// terms from Markets. See Markets for where terms go.
	Terms Terms
	// Markets are the markets the input is known to hold (a catalog
	// snapshot, LoadCatalog, or --market flags): their tokens in outcome
	// order, YES first, and their terms. When a market's first event is
	// written, one meta per token goes before it, in this order, with the
	// terms; the books carry the tick and minimum size. A book's own
	// tick_size or min_order_size, and a tick_size_change message, win
	// from their time on.
	Markets []Market
	// CatalogSkipped are the markets of the catalog snapshot that Markets
	// came from which it skipped (Catalog.Skipped); they are reported in
	// Stats.CatalogSkipped.
	CatalogSkipped []SkippedMarket
	// Complement derives, for a binary market of Markets, the book of an
	// outcome that has no book of its own in the input (yet) from the
	// other outcome's, mirrored at 1 − p: the NO book's bids are the YES
	// asks at 1 − p, its asks the YES bids at 1 − p, with the same sizes;
	// each trade of the other outcome is mirrored too (price 1 − p, the
	// opposite taker side). The derivation stops at the token's own first
	// book. Stats.Warnings says which tokens were derived.
	Complement bool
	// Window is how many events may be held to restore time order; 0 means
	// DefaultWindow.
	Window int
	// TradeSide says what the "side" of a last_trade_price message is:
	// "taker" (the default, ""): the aggressor's side, kept as is; "maker":
	// the resting order's side, inverted to give the taker's; "none":
	// dropped (trades of unknown side).
	TradeSide string
	// Progress, when set, is called every ProgressEvery messages (0:
	// DefaultProgressEvery), on Import's goroutine.
	Progress      func(Progress)
	ProgressEvery int
}

// Error locates a failure in the input: the file (when known), the 1-based
// index of the message in it and the byte offset where that message
// starts (in the decompressed input).
type Error struct {
	File    string
	Message int
	Offset  int64
	Err     error
}

func (e *Error) Error() string {
	if e.File != "" {
		return fmt.Sprintf("%s: message %d (byte %d): %v", e.File, e.Message, e.Offset, e.Err)
	}
	return fmt.Sprintf("message %d (byte %d): %v", e.Message, e.Offset, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Import reads the exchange's public market-channel messages from r and
// writes them to sink as events in time order. The input is any sequence of
// JSON values, each a message object or an array of them (JSON Lines, a
// JSON array, or both in one file: a websocket capture starts with an array
// frame and goes on with single messages); arrays are streamed element by
// element. Gzip input is decompressed. Memory stays bounded by the reorder
// window and the number of tokens, not by the input's length.
//
// Every message is imported, skipped and counted by reason (Stats.Skipped),
// or an *Error.
func Import(ctx context.Context, r io.Reader, sink recording.EventSink, opts Options) (Stats, error) {
	im, err := newImporter(ctx, sink, opts)
	if err != nil {
		return Stats{}, err
	}
	if err := im.read(r, ""); err != nil {
		return im.stats(), err
	}
	if err := im.finish(); err != nil {
		return im.stats(), err
	}
	return im.stats(), nil
}

// importer is the state of one import: the books, the reorder window and
// the counts. It reads one input after another (ImportFiles) as one
// stream.
type importer struct {
	ctx  context.Context
	opts Options
	out  reorder
	sink recording.EventSink
	st   Stats

	books    map[string]*liveBook
	ticks    map[string]decimal.Decimal // tick by token, from the messages (a change of one token's is its market's)
	said     map[string]decimal.Decimal // by token, the tick its own messages last gave (ticks.go)
	lastBook map[string]time.Time       // by token, the time of its last book written (late.go)
	late     map[string]*lateUpdates    // by market (or "token:<id>"), the updates dated before the book they follow
	mins     map[string]decimal.Decimal // minimum size by token, from the messages
	known    knownMarkets
	seen     map[string]*seenMarket // markets (or lone tokens) of the input, for the warnings
	own      map[string]bool        // tokens with a book of their own in the input
	// introduced are the tokens whose terms have been written (or that
	// have none).
	introduced map[string]bool

	readBytes func() int64 // bytes of the inputs read so far (ImportFiles)
	total     int64        // bytes of all the inputs (ImportFiles)
	file      string       // the input being read
	msg       int          // the 1-based index in it of the message being handled
	start     int64        // the offset where that message starts
	nfile     int          // messages read in this input
}

func newImporter(ctx context.Context, sink recording.EventSink, opts Options) (*importer, error) {
	if opts.Window <= 0 {
		opts.Window = DefaultWindow
	}
	if opts.ProgressEvery <= 0 {
		opts.ProgressEvery = DefaultProgressEvery
	}
	switch opts.TradeSide {
	case "", "taker", "maker", "none":
	default:
		return nil, fmt.Errorf("import: trade side %q: want taker, maker or none", opts.TradeSide)
	}
	known, err := newKnownMarkets(opts.Markets)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	im := &importer{ctx: ctx, opts: opts, books: map[string]*liveBook{}, ticks: map[string]decimal.Decimal{}, said: map[string]decimal.Decimal{},
		lastBook: map[string]time.Time{}, late: map[string]*lateUpdates{},
		mins: map[string]decimal.Decimal{}, known: known, seen: map[string]*seenMarket{}, own: map[string]bool{},
		introduced: map[string]bool{}, sink: sink, st: newStats()}
	im.out = reorder{window: opts.Window, write: im.write, last: map[string]rankedTime{}}
	im.st.CatalogSkipped = append([]SkippedMarket(nil), opts.CatalogSkipped...)
	return im, nil
}

// Progress is how far an import has come.
type Progress struct {
	File        string // the input being read ("" for Import)
	Read, Total int64  // bytes of the inputs read and in all (ImportFiles; compressed sizes)
	Messages    int    // messages read
	Events      int    // events written
}

func (im *importer) progress() Progress {
	p := Progress{File: im.file, Total: im.total, Messages: im.st.Messages, Events: im.st.Events}
	if im.readBytes != nil {
		p.Read = im.readBytes()
	}
	return p
}

// read imports one input (gzip or not).
func (im *importer) read(r io.Reader, name string) error {
	im.file, im.nfile = name, 0
	br, closeGz, err := gunzip(r)
	if err != nil {
		return im.wrap(err)
	}
	defer closeGz()
	s := newStream(br, func(kind string) { im.st.Frames[kind]++ })
	fail := func(start int64, err error) error {
		im.msg, im.start = im.nfile+1, start
		return im.fail(err)
	}
	return s.values(im.handleRaw, fail)
}

// gunzip returns a buffered reader of r, decompressed when r starts with
// the gzip magic number, and the function that releases the decompressor.
func gunzip(r io.Reader) (*bufio.Reader, func(), error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("gzip: %w", err)
		}
		return bufio.NewReaderSize(gz, 64<<10), func() { _ = gz.Close() }, nil
	}
	return br, func() {}, nil
}

// finish writes what the reorder window holds and the closing counts.
func (im *importer) finish() error {
	if err := im.out.flush(); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	im.warn()
	return nil
}

func (im *importer) fail(err error) error {
	return &Error{File: im.file, Message: im.msg, Offset: im.start, Err: err}
}

// wrap names the input of an error that is not about one message.
func (im *importer) wrap(err error) error {
	if im.file != "" {
		return fmt.Errorf("import %s: %w", im.file, err)
	}
	return fmt.Errorf("import: %w", err)
}

// handleRaw handles one message object that starts at offset start.
func (im *importer) handleRaw(raw json.RawMessage, start int64) error {
	im.nfile++
	im.st.Messages++
	im.msg, im.start = im.nfile, start
	if im.st.Messages%1024 == 0 {
		if err := im.ctx.Err(); err != nil {
			return err
		}
	}
	if im.opts.Progress != nil && im.st.Messages%im.opts.ProgressEvery == 0 {
		im.opts.Progress(im.progress())
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
