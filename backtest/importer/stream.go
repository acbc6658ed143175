package importer

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxNesting is how deeply arrays of messages may nest ([[{…}]] is 2).
const maxNesting = 4

// stream reads a sequence of JSON values from a bufio.Reader through one
// json.Decoder, and can tell the first byte and the byte offset of the
// next value before decoding it: so an array is streamed element by
// element whatever the line it is on, and an error names where the
// failing message starts.
type stream struct {
	br  *bufio.Reader
	dec *json.Decoder
	// extra counts the bytes read from br directly (whitespace the decoder
	// never saw): offsets in the input are the decoder's plus extra.
	extra int64
}

func newStream(br *bufio.Reader) *stream {
	return &stream{br: br, dec: json.NewDecoder(br)}
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

// peek returns the first byte of the next value and its offset in the
// input, skipping whitespace (and, inside an array, the comma before an
// element). It returns io.EOF at the end of the input.
func (s *stream) peek(inArray bool) (byte, int64, error) {
	off := s.dec.InputOffset() + s.extra
	// The decoder's buffer comes first in the input; reading it through
	// Buffered does not consume it.
	if r, ok := s.dec.Buffered().(io.ByteReader); ok {
		for {
			b, err := r.ReadByte()
			if err != nil {
				break
			}
			if isSpace(b) || inArray && b == ',' {
				off++
				continue
			}
			return b, off, nil
		}
	} else {
		return 0, 0, errors.New("json decoder without a byte reader")
	}
	// Everything the decoder holds is blank: look in the reader itself,
	// and drop the blanks there (the decoder would skip them too).
	for {
		p, err := s.br.Peek(1)
		if err != nil {
			return 0, off, err
		}
		if isSpace(p[0]) || inArray && p[0] == ',' {
			_, _ = s.br.Discard(1)
			s.extra++
			off++
			continue
		}
		return p[0], off, nil
	}
}

// values calls value for every message object in the input: a sequence of
// JSON values (JSON Lines, or one JSON array, or any mix), each of which
// is a message object or an array of them, streamed element by element.
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
		if err := s.one(b, start, 0, value, fail); err != nil {
			return err
		}
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
