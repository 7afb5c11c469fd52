// Placeholder: replaced by the kernel.
import CellMotion
