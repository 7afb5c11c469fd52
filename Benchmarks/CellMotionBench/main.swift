print("cellmotion-bench: placeholder")
