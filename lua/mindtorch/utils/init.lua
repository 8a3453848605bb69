-- mindtorch.utils: torch.utils (data loading).
return { data = require("mindtorch.utils.data") }
