// Placeholder: replaced by the GLM baseline.
