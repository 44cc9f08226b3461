"""The pure core: catalog reading, the index, ranking, route assembly and rendering."""
