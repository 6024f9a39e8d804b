package kafkaproto

// HeadBytes is how much of a frame a Splitter gathers before handing over its start: enough
// for any header and the leading fields the table names (ids up to several hundred bytes).
const HeadBytes = 1024

// Splitter cuts a byte stream, arriving in chunks of any size, into pieces that never cross a
// frame boundary. The piece that starts a frame holds at least its first HeadBytes (or the
// whole frame, if shorter), so it can be read and rewritten before any of it is passed on.
//
// A stream joined in the middle of a frame (a toxic added to an open connection) is read
// out of step until a chunk starts with something that looks like a frame: pieces are then
// handed over as "not a frame start" and nothing in them is read.
type Splitter struct {
	remaining int    // bytes of the current frame still to come
	head      []byte // the start of a frame, gathered until it can be read
	lost      bool   // out of step: wait for the next chunk
	// Looks says whether a frame's head looks real (e.g. a plausible request header); nil
	// accepts any plausible size.
	Looks func(head []byte) bool
}

// Feed splits one chunk; emit gets each piece in order, start=true for a frame's first piece.
// Pieces may alias the chunk or the Splitter's buffer: use them before the next Feed.
func (s *Splitter) Feed(data []byte, emit func(piece []byte, start bool)) {
	if s.lost && len(s.head) == 0 && s.remaining == 0 {
		s.lost = false // a new chunk: try it as a frame start
	}
	for len(data) > 0 {
		if s.remaining > 0 {
			n := min(s.remaining, len(data))
			s.remaining -= n
			emit(data[:n], false)
			data = data[n:]
			continue
		}
		if s.lost {
			emit(data, false)
			return
		}
		if len(s.head) == 0 && len(data) >= HeadBytes {
			data = s.start(data, emit) // a whole head in the chunk: no copy
			continue
		}
		s.head = append(s.head, data...)
		data = nil
		if len(s.head) < SizeBytes {
			return
		}
		size := FrameSize(s.head)
		if size < 0 || len(s.head) < min(size, HeadBytes) {
			if size < 0 {
				s.outOfStep(emit)
			}
			return
		}
		head := s.head
		s.head = nil
		data = s.start(head, emit)
	}
}

// start hands over the frame starting at data[0] (its head complete) and returns what follows it.
func (s *Splitter) start(data []byte, emit func(piece []byte, start bool)) []byte {
	size := FrameSize(data)
	if size < 0 || (s.Looks != nil && !s.Looks(data[:min(size, len(data))])) {
		s.head = data
		s.outOfStep(emit)
		return nil
	}
	n := min(size, len(data))
	s.remaining = size - n
	emit(data[:n], true)
	return data[n:]
}

func (s *Splitter) outOfStep(emit func(piece []byte, start bool)) {
	s.lost = true
	head := s.head
	s.head = nil
	emit(head, false)
}

// Pending is what the Splitter holds back (an incomplete head), to be passed on unread when
// the stream must flow again without it.
func (s *Splitter) Pending() []byte {
	head := s.head
	s.head = nil
	return head
}
