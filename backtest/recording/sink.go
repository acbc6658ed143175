package recording

// EventSink receives events in time order; *Writer is one.
type EventSink interface {
	Write(Event) error
}
