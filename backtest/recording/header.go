package recording

import (
	"errors"
	"fmt"
	"time"
)

// Format is the value of the header's "format" field.
const Format = "mmbot-recording"

// Version is the recording format version this package writes and reads.
const Version = 1

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
	return fmt.Sprintf("unsupported recording version %d (this build reads version %d)", e.Got, Version)
}

// check validates a decoded header.
func (h Header) check() error {
	if h.Format != Format {
		return fmt.Errorf("%w: format %q", ErrNotRecording, h.Format)
	}
	if h.Version != Version {
		return &VersionError{Got: h.Version}
	}
	return nil
}
