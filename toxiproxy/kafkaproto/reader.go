package kafkaproto

import (
	"encoding/binary"
	"errors"
)

// ErrShort: the bytes end before the value does (a frame's head cut short).
var ErrShort = errors.New("kafkaproto: bytes end before the value")

// reader walks big-endian protocol values; compact switches strings to the flexible
// versions' encoding (unsigned varint length + 1).
type reader struct {
	b       []byte
	off     int
	compact bool
}

func (r *reader) take(n int) ([]byte, error) {
	if n < 0 || r.off+n > len(r.b) {
		return nil, ErrShort
	}
	v := r.b[r.off : r.off+n]
	r.off += n
	return v, nil
}

func (r *reader) int8() (int8, error) {
	v, err := r.take(1)
	if err != nil {
		return 0, err
	}
	return int8(v[0]), nil
}

func (r *reader) int16() (int16, error) {
	v, err := r.take(2)
	if err != nil {
		return 0, err
	}
	return int16(binary.BigEndian.Uint16(v)), nil
}

func (r *reader) int32() (int32, error) {
	v, err := r.take(4)
	if err != nil {
		return 0, err
	}
	return int32(binary.BigEndian.Uint32(v)), nil
}

func (r *reader) int64() (int64, error) {
	v, err := r.take(8)
	if err != nil {
		return 0, err
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

func (r *reader) uvarint() (uint64, error) {
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		return 0, ErrShort
	}
	r.off += n
	return v, nil
}

// string reads a string, or a nullable one (null gives ok=false).
func (r *reader) string() (s string, ok bool, err error) {
	var n int
	if r.compact {
		length, err := r.uvarint()
		if err != nil {
			return "", false, err
		}
		n = int(length) - 1
	} else {
		length, err := r.int16()
		if err != nil {
			return "", false, err
		}
		n = int(length)
	}
	if n < 0 {
		return "", false, nil
	}
	v, err := r.take(n)
	return string(v), true, err
}

// skipTaggedFields passes over a tagged-field section (a count, then tag, size, data each).
func (r *reader) skipTaggedFields() error {
	count, err := r.uvarint()
	if err != nil {
		return err
	}
	for i := uint64(0); i < count; i++ {
		if _, err := r.uvarint(); err != nil {
			return err
		}
		size, err := r.uvarint()
		if err != nil {
			return err
		}
		if _, err := r.take(int(size)); err != nil {
			return err
		}
	}
	return nil
}

// field reads one value of a table type: a string, an int64 for every integer, or a bool; for
// an array, its length (its elements follow: the table lists the first one's fields next); a
// uuid is skipped.
func (r *reader) field(kind string) (any, error) {
	switch kind {
	case "array":
		if r.compact {
			n, err := r.uvarint()
			return int64(n) - 1, err
		}
		v, err := r.int32()
		return int64(v), err
	case "uuid":
		_, err := r.take(16)
		return nil, err
	case "int8":
		v, err := r.int8()
		return int64(v), err
	case "int16":
		v, err := r.int16()
		return int64(v), err
	case "int32":
		v, err := r.int32()
		return int64(v), err
	case "int64":
		return r.int64()
	case "bool":
		v, err := r.int8()
		return v != 0, err
	case "string", "nullable_string":
		s, ok, err := r.string()
		if !ok || err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, errors.New("kafkaproto: unknown field type " + kind)
}
