package count

// keySet returns the keys cached.
func (c *compCache) keySet() map[string]bool {
	m := map[string]bool{}
	for i := range c.entries {
		if e := &c.entries[i]; e.klen >= 0 {
			m[string(c.key(e))] = true
		}
	}
	return m
}
