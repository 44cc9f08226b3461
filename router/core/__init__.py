"""What the engine's packages share below the catalog: text, what may be shown, a request's
deadline."""
