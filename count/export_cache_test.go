package count

// keySet returns the keys cached.
func (c *compCache) keySet() map[string]bool {
	m := map[string]bool{}
	for i := range int32(c.nent) {
		if e := c.ent(i); e.klen >= 0 {
			m[string(c.key(e))] = true
		}
	}
	return m
}
