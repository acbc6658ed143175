package recording

import (
	"context"
	"fmt"
)

// Convert copies the recording at in to out, in the format that opts or
// out's name choose (WithFormat, FormatForPath): version 1 to version 2,
// version 2 to version 1, or the same version again. The header keeps its
// source and creation time, so a round trip gives back the same events,
// and the same bytes before compression. out is written atomically: after
// an error (or ctx's end) nothing is left there. It returns the number of
// events copied.
func Convert(ctx context.Context, in, out string, opts ...WriterOption) (int, error) {
	r, err := Open(in)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	h := r.Header()
	w, err := NewWriter(out, append([]WriterOption{WithSource(h.Source), WithCreated(h.Created)}, opts...)...)
	if err != nil {
		return 0, err
	}
	n := 0
	for e, err := range r.All() {
		if err == nil && n%4096 == 0 {
			err = ctx.Err()
		}
		if err == nil {
			err = w.Write(e)
		}
		if err != nil {
			_ = w.Abort()
			return n, fmt.Errorf("recording %s: event %d: %w", in, n+1, err)
		}
		n++
	}
	if err := w.Close(); err != nil {
		return n, err
	}
	return n, nil
}
