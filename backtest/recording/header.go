package recording

import (
	"errors"
	"fmt"
	"time"
)

// Format is the value of the header's "format" field.
const Format = "mmbot-recording"

// Version is the newest recording format version, the one written by
// default (FormatV2). This package reads versions 1 and 2.
const Version = 2

// Header is the first line of a recording.
type Header struct {
	Format  string    `json:"format"`
	Version int       `json:"version"`
	Created time.Time `json:"created"`
	Source  string    `json:"source"`
}

// ErrNotRecording means the first line is not an mmbot recording header.
var ErrNotRecording = errors.New("not an mmbot recording (no header line)")

// VersionError is returned for a recording whose version this build cannot
// read.
type VersionError struct {
	Got int
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("unsupported recording version %d (this build reads version 1, JSON Lines, and version 2, binary)", e.Got)
}

// check validates a decoded header of a file in the given version (1: a
// JSON Lines file, 2: a binary one).
func (h Header) check(version int) error {
	if h.Format != Format {
		return fmt.Errorf("%w: format %q", ErrNotRecording, h.Format)
	}
	if h.Version != version {
		return &VersionError{Got: h.Version}
	}
	return nil
}
