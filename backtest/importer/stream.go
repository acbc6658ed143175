package importer

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxNesting is how deeply arrays of messages may nest ([[{…}]] is 2).
const maxNesting = 4

// stream reads a sequence of JSON values from a bufio.Reader through one
// json.Decoder, and can tell the first byte and the byte offset of the
// next value before decoding it: so an array is streamed element by
// element whatever the line it is on, and an error names where the
// failing message starts. A line at the top level that is not a JSON
// object or array (a websocket capture's keep-alive PING or PONG, another
// text frame) is skipped and reported, and so is an empty line.
type stream struct {
	src *source
	dec *json.Decoder
	// extra is the input offset at which dec started reading, plus the
	// bytes read from src directly since (whitespace the decoder never
	// saw): offsets in the input are the decoder's plus extra.
	extra int64
	// lineBlank is set while the current line has held nothing but
	// whitespace (at the top level).
	lineBlank bool
	// skip is told of each frame skipped, by kind (frameKeepAlive, …).
	skip func(kind string)
}

// source is the input after the decoder: bytes taken back from a
// decoder's buffer (pending), then the reader.
type source struct {
	pending []byte
	br      *bufio.Reader
}

func (r *source) Read(p []byte) (int, error) {
	if len(r.pending) > 0 {
		n := copy(p, r.pending)
		r.pending = r.pending[n:]
		return n, nil
	}
	return r.br.Read(p)
}

// peekByte returns the next byte without consuming it.
func (r *source) peekByte() (byte, error) {
	if len(r.pending) > 0 {
		return r.pending[0], nil
	}
	p, err := r.br.Peek(1)
	if err != nil {
		return 0, err
	}
	return p[0], nil
}

func (r *source) discard() {
	if len(r.pending) > 0 {
		r.pending = r.pending[1:]
		return
	}
	_, _ = r.br.Discard(1)
}

// Kinds of skipped frames, as keys of Stats.Frames.
const (
	frameKeepAlive = "keep-alive (PING, PONG)"
	frameEmpty     = "empty line"
	frameText      = "other text frame (not a JSON object or array)"
)

func newStream(br *bufio.Reader, skip func(kind string)) *stream {
	src := &source{br: br}
	if skip == nil {
		skip = func(string) {}
	}
	return &stream{src: src, dec: json.NewDecoder(src), lineBlank: true, skip: skip}
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

// peek returns the first byte of the next value and its offset in the
// input, skipping whitespace (and, inside an array, the comma before an
// element). It returns io.EOF at the end of the input. At the top level it
// counts the empty lines it passes.
func (s *stream) peek(inArray bool) (byte, int64, error) {
	off := s.dec.InputOffset() + s.extra
	blank := func(b byte) bool {
		if !isSpace(b) && (!inArray || b != ',') {
			return false
		}
		if !inArray && b == '\n' {
			if s.lineBlank {
				s.skip(frameEmpty)
			}
			s.lineBlank = true
		}
		return true
	}
	// The decoder's buffer comes first in the input; reading it through
	// Buffered does not consume it.
	if r, ok := s.dec.Buffered().(io.ByteReader); ok {
		for {
			b, err := r.ReadByte()
			if err != nil {
				break
			}
			if blank(b) {
				off++
				continue
			}
			return b, off, nil
		}
	} else {
		return 0, 0, errors.New("json decoder without a byte reader")
	}
	// Everything the decoder holds is blank: look in the source itself,
	// and drop the blanks there (the decoder would skip them too).
	for {
		b, err := s.src.peekByte()
		if err != nil {
			return 0, off, err
		}
		if blank(b) {
			s.src.discard()
			s.extra++
			off++
			continue
		}
		return b, off, nil
	}
}

// skipFrame skips the line that starts at offset start with a byte that
// cannot start a message or an array of them, and reports its kind. The
// decoder's buffer goes back to the source and a new decoder reads on
// after the line.
func (s *stream) skipFrame(start int64) error {
	head, err := io.ReadAll(s.dec.Buffered())
	if err != nil {
		return err
	}
	s.src.pending = append(head, s.src.pending...)
	// Everything before start is whitespace the peek has passed.
	for {
		b, err := s.src.peekByte()
		if err != nil || !isSpace(b) {
			break
		}
		s.src.discard()
	}
	var line []byte
	n := int64(0)
	for {
		b, err := s.src.peekByte()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		s.src.discard()
		n++
		if b == '\n' {
			break
		}
		if len(line) < 16 {
			line = append(line, b)
		}
	}
	s.dec = json.NewDecoder(s.src)
	s.extra = start + n
	s.lineBlank = true
	switch strings.ToUpper(strings.TrimSpace(string(line))) {
	case "PING", "PONG":
		s.skip(frameKeepAlive)
	default:
		s.skip(frameText)
	}
	return nil
}

// values calls value for every message object in the input: a sequence of
// JSON values (JSON Lines, or one JSON array, or any mix), each of which
// is a message object or an array of them, streamed element by element;
// a line that starts with anything else is a text frame, skipped.
// start is where the object starts in the input.
func (s *stream) values(value func(raw json.RawMessage, start int64) error, fail func(start int64, err error) error) error {
	for {
		b, start, err := s.peek(false)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fail(start, err)
		}
		if b != '{' && b != '[' {
			if err := s.skipFrame(start); err != nil {
				return fail(start, err)
			}
			continue
		}
		if err := s.one(b, start, 0, value, fail); err != nil {
			return err
		}
		s.lineBlank = false
	}
}

// one handles the value starting with byte b at start: an array of
// messages (streamed) or one message.
func (s *stream) one(b byte, start int64, depth int, value func(json.RawMessage, int64) error, fail func(int64, error) error) error {
	if b != '[' {
		var raw json.RawMessage
		if err := s.dec.Decode(&raw); err != nil {
			return fail(start, syntaxError(err))
		}
		return value(raw, start)
	}
	if depth >= maxNesting {
		return fail(start, fmt.Errorf("arrays of messages nested more than %d deep", maxNesting))
	}
	if _, err := s.dec.Token(); err != nil { // the '['
		return fail(start, syntaxError(err))
	}
	for s.dec.More() {
		b, at, err := s.peek(true)
		if err != nil {
			return fail(at, syntaxError(err))
		}
		if err := s.one(b, at, depth+1, value, fail); err != nil {
			return err
		}
	}
	if _, err := s.dec.Token(); err != nil { // the ']'
		at := s.dec.InputOffset() + s.extra
		return fail(at, syntaxError(err))
	}
	return nil
}

// syntaxError names an input that ends in the middle of a value.
func syntaxError(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("input ends inside a message or an array: %w", io.ErrUnexpectedEOF)
	}
	return err
}
